/**
 * Driver errors to AppErrors at the adapter boundary (STYLE.md "Errors"): by MongoDB error
 * code, never by message text.
 */
import { MongoServerError } from 'mongodb';
import { ConflictError } from '../../core/errors';

/** E11000 duplicate key (also the code of a MongoBulkWriteError failing on one). */
export const DUPLICATE_KEY = 11000;

export function isDuplicateKey(err: unknown): err is MongoServerError {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/** Returns a ConflictError for a duplicate key in `collection`, else `err` unchanged. */
export function mapMongoError(err: unknown, collection: string): unknown {
  return isDuplicateKey(err) ? new ConflictError(`Duplicate key in ${collection}`) : err;
}
