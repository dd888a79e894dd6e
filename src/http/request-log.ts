import type { NextFunction, Request, Response } from 'express';
import { beginRequest, REQUEST_ID_HEADER, requestIdFrom, runInRequest, type RequestRecord } from '../graphql/record';

/**
 * The record of each response's request, kept by requestIdentity. A map of its own rather than
 * `res.locals`, whose values Express types as `any`, so the record is read back with its type.
 */
const records = new WeakMap<Response, RequestRecord>();

/** The record requestIdentity made for the request `res` answers, if it ran. */
export function requestRecordOf(res: Response): RequestRecord | undefined {
  return records.get(res);
}

/**
 * Express middleware that goes first on the GraphQL route: it picks the request id, returns it in
 * the `x-request-id` response header, keeps the record for the response (the error handler reads
 * it with requestRecordOf), and hands the record to `finish` (its log line and metrics) when the
 * response is done or the client went away.
 */
export function requestIdentity(finish: (record: RequestRecord, status: number) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    const record = beginRequest(requestIdFrom(req.headers[REQUEST_ID_HEADER]));
    records.set(res, record);
    res.setHeader(REQUEST_ID_HEADER, record.requestId);
    res.once('close', () => finish(record, res.statusCode));
    next();
  };
}

/**
 * Express middleware that makes the request's record current for what follows (Apollo). It goes
 * after body parsing, because a body parser resumes in the socket's async context and would lose
 * a record made current before it.
 */
export function requestScope() {
  return (_req: Request, res: Response, next: NextFunction) => {
    const record = requestRecordOf(res);
    if (record) runInRequest(record, next);
    else next();
  };
}
