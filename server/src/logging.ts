import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config/config';

/**
 * Fields of the request log line (http/request-log.ts) that the pretty format leaves out:
 * its message already reads `GET /path 200 1.2ms`.
 */
const PRETTY_HIDDEN_FIELDS = 'pid,hostname,method,path,status,duration_ms';

/**
 * The server's logger (identity-api.md "Platform settings": logging.level, logging.format).
 * `json`: one JSON object per line (pino's format: `level` number, `time` epoch ms, `msg`);
 * `pretty`: one human-readable line per event (pino-pretty, colours only on a TTY) with the
 * remaining fields as a compact JSON tail. Writes synchronously to `destination` (default
 * stdout), so no line is lost when the process exits.
 */
export function createLogger(config: Pick<Config, 'logging'>, destination?: DestinationStream): PinoLogger {
  const level = config.logging.level;
  if (config.logging.format === 'json') {
    return pino({ level }, destination ?? pino.destination({ fd: 1, sync: true }));
  }
  const stream = pretty({
    colorize: destination === undefined && process.stdout.isTTY === true,
    singleLine: true,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    ignore: PRETTY_HIDDEN_FIELDS,
    sync: true,
    ...(destination ? { destination } : {}),
  });
  return pino({ level }, stream);
}
