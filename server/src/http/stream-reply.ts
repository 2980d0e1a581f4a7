import type { Response } from 'express';
import type { BodyWriter } from './route';

/** The client closed the connection while a streamed reply was being written. */
class ClientGone extends Error {
  constructor() {
    super('client closed the connection during a streamed reply');
  }
}

/**
 * Sends a streamed reply (route.ts `Reply.stream`) on `res`, whose status and headers are set:
 * `contentType` (charset utf-8 added for JSON, as `res.send` does), chunked transfer encoding,
 * the chunks `stream` writes, then the end. Honours backpressure: a write that fills the socket's
 * buffer waits for 'drain'. Errors before the first write propagate (the error middleware still
 * answers with its status); after it, the connection is destroyed, since the status is already
 * sent. A client that disconnects stops the stream quietly.
 */
export async function sendStreamed(res: Response, contentType: string, stream: (out: BodyWriter) => Promise<void>): Promise<void> {
  res.type(contentType);
  let gone = false;
  const onClose = (): void => {
    gone = !res.writableFinished;
  };
  res.once('close', onClose);
  const out: BodyWriter = {
    write(chunk) {
      if (gone || res.destroyed) return Promise.reject(new ClientGone());
      if (res.write(chunk)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const drained = (): void => {
          res.off('close', closed);
          resolve();
        };
        const closed = (): void => {
          res.off('drain', drained);
          reject(new ClientGone());
        };
        res.once('drain', drained);
        res.once('close', closed);
      });
    },
  };
  try {
    await stream(out);
    res.end();
  } catch (error) {
    if (error instanceof ClientGone) return;
    if (!res.headersSent) throw error;
    res.destroy(); // the status is already sent: a cut connection is all that is left to signal failure
  } finally {
    res.off('close', onClose);
  }
}
