import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import express from 'express';
import type { Part } from './graphql-post';

/**
 * The JSON body part of the GraphQL POST route: what `express.json({ limit })` (body-parser) does,
 * with the plain request read here. A plain request is one whose Content-Type is exactly
 * `application/json` (or with `charset=utf-8`), with no Content-Encoding and no
 * Transfer-Encoding, and a Content-Length within `limitBytes`: what every GraphQL client sends.
 * Every other request goes to body-parser itself, which answers it as it always did (a charset
 * it refuses, a compressed body, a body past the limit, a chunked one).
 *
 * A plain request gets what body-parser gives it: `req.body` as body-parser's strict JSON parser
 * parses the UTF-8 text (a leading byte order mark dropped, an empty body `{}`), or the error
 * body-parser passes on, with the same `type` and `status` (`entity.parse.failed` 400 for text that
 * is not a JSON object or array, `request.aborted` 400 for a client gone before the end).
 * Both refuse a UTF-8 body whose bytes are not UTF-8 (`entity.encoding.invalid` 400): decoded,
 * each bad byte would become U+FFFD and the request would run on text its client never sent.
 * The rest of the request runs in the async context the part was called in, as body-parser's
 * raw-body binds it. For a 50-item read, body-parser's header checks, decoder and stream
 * wrappers were about 1.5 % of the server's CPU; test/e2e/http-post-route.test.ts holds the two
 * answers equal.
 */
export function jsonBody(limitBytes: number): Part {
  const bodyParser = utf8Json(limitBytes);
  return (req, res, next) => {
    if (!isPlain(req, limitBytes)) return bodyParser(req, res, next);
    // A promise's handlers run in the async context `then` was called in: the request's.
    readPlain(req).then(
      (body) => {
        Object.assign(req, { body });
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

/**
 * body-parser's JSON part (`express.json({ limit })`) for every route that reads a JSON body,
 * refusing a UTF-8 body whose bytes are not UTF-8 as jsonBody does. Its documented `verify` sees
 * the bytes before they are decoded; a UTF-16 body, which body-parser also takes, is left to its
 * decoder.
 */
export function utf8Json(limitBytes: number): Part {
  return express.json({
    limit: limitBytes,
    verify: (_req, _res, bytes, encoding) => {
      if (encoding === 'utf-8' && !isUtf8(bytes)) throw notUtf8();
    },
  });
}

/** Reads and parses a plain request's body (see jsonBody); rejects with body-parser's error. */
function readPlain(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    };
    const onEnd = () => {
      stop();
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
      if (!isUtf8(bytes)) return reject(notUtf8());
      const text = bytes.toString('utf8');
      try {
        resolve(parseStrict(text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text));
      } catch (error) {
        reject(bodyError(`The body is not a JSON object or array: ${String(error)}`, 'entity.parse.failed'));
      }
    };
    const onError = (error: Error) => {
      stop();
      reject(bodyError(`The body could not be read: ${error.message}`, 'request.aborted'));
    };
    // A request that closes before its end: its client went away (raw-body's `request.aborted`).
    const onClose = () => {
      if (req.complete) return;
      stop();
      reject(bodyError('The request was aborted.', 'request.aborted'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const BYTE_ORDER_MARK = 0xfeff;
const PLAIN_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/** Whether `req` is a plain JSON request (see jsonBody) that no earlier parser has read. */
function isPlain(req: IncomingMessage, limitBytes: number): boolean {
  const { headers } = req;
  const type = headers['content-type'];
  if (type === undefined || !PLAIN_TYPES.has(type.toLowerCase())) return false;
  if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
  if ('body' in req || req.readableEnded) return false;
  const length = Number(headers['content-length']);
  return headers['content-length'] !== undefined && Number.isInteger(length) && length >= 0 && length <= limitBytes;
}

/**
 * JSON.parse as body-parser's strict parser: an empty body is `{}`, and text whose first
 * non-whitespace character does not open an object or an array is refused.
 */
function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  if (text[0] !== '{' && text[0] !== '[') {
    // JSON's whitespace: space, tab, line feed, carriage return.
    const first = /^[ \t\n\r]*(.)/s.exec(text)?.[1];
    if (first !== '{' && first !== '[') throw new SyntaxError(`Unexpected token ${first ?? 'end of input'}`);
  }
  return JSON.parse(text);
}

/** A body whose bytes are not UTF-8 (see jsonBody), refused by either path alike. */
const notUtf8 = () => bodyError('The body is not valid UTF-8.', 'entity.encoding.invalid');

/** An error as body-parser passes it on: its `status` and `type` are what the route's error handler reads. */
function bodyError(message: string, type: string): Error {
  return Object.assign(new Error(message), { status: 400, statusCode: 400, expose: true, type });
}
