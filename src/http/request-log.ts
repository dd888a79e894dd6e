import type { IncomingMessage, ServerResponse } from 'node:http';
import { beginRequest, REQUEST_ID_HEADER, requestIdFrom, runInRequest, type RequestRecord } from '../graphql/record';

/**
 * The record of each response's request, kept by requestIdentity. A map of its own rather than
 * `res.locals`, whose values Express types as `any`, so the record is read back with its type.
 */
const records = new WeakMap<ServerResponse, RequestRecord>();

/** The record requestIdentity made for the request `res` answers, if it ran. */
export function requestRecordOf(res: ServerResponse): RequestRecord | undefined {
  return records.get(res);
}

/** Sockets the shutdown drain destroyed while a response on them was unfinished (see noteCutAtShutdown). */
const cutAtShutdown = new WeakSet<object>();

/**
 * Marks a socket whose unfinished responses the shutdown drain is about to cut off, so their
 * requests are logged as cut by the shutdown rather than as answered.
 */
export function noteCutAtShutdown(socket: object): void {
  cutAtShutdown.add(socket);
}

/**
 * Middleware (Express's, or a part of the POST route) that goes first on the GraphQL route: it
 * picks the request id, returns it in the `x-request-id` response header, keeps the record for
 * the response (the error handler reads it with requestRecordOf), and hands the record to
 * `finish` (its log line and metrics) when the response is done, or never will be: the
 * connection closed first (outcome CONNECTION_CLOSED: the client went away, or its request timed
 * out) or the shutdown drain cut it off (outcome CUT_AT_SHUTDOWN).
 */
export function requestIdentity(finish: (record: RequestRecord, status: number | undefined) => void) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const record = beginRequest(requestIdFrom(req.headers[REQUEST_ID_HEADER]));
    records.set(res, record);
    res.setHeader(REQUEST_ID_HEADER, record.requestId);
    res.once('close', () => {
      if (res.writableFinished) return finish(record, res.statusCode);
      // The response never completed, so the client did not get what the record says: the line
      // says who cut it, and gives a status only if one had been sent before the cut.
      record.outcome = cutAtShutdown.has(req.socket) ? 'CUT_AT_SHUTDOWN' : 'CONNECTION_CLOSED';
      finish(record, res.headersSent ? res.statusCode : undefined);
    });
    next();
  };
}

/**
 * Middleware that makes the request's record current for what follows (Apollo). It goes
 * after body parsing, because a body parser resumes in the socket's async context and would lose
 * a record made current before it.
 */
export function requestScope() {
  return (_req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const record = requestRecordOf(res);
    if (record) runInRequest(record, next);
    else next();
  };
}
