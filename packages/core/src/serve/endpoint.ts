import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import type { Connection } from '../context.js';
import { ConfigurationError } from '../errors.js';
import type { HttpOptions } from '../http.js';
import type { GatehouseServer } from '../server.js';
import { stripHidden } from '../text.js';
import { byteLimit, readJsonBody } from './body.js';
import { capErrorResponse } from './echoes.js';
import { type HttpAnswer, type HttpExchange, httpAdmission } from './httpAdmission.js';
import { nativeServing } from './native.js';
import { CONNECTION_KEY } from './refusal.js';
import { type RefusalLog, refusalLogOf } from './refusalLog.js';
import { refuseMovedOnerror, reporter } from './report.js';
import { sdkOnerror } from './sdkReports.js';
import { admissionProtocolError, internalProtocolError, sdkServerWith } from './sdkServer.js';
import { toolHandlers } from './toolHandlers.js';

/** One exchange with the MCP endpoint: a web `Request`, or a node:http request read directly. */
export interface EndpointExchange extends Pick<HttpExchange, 'method' | 'header' | 'readBody'> {
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** The peer's address when the carrier knows it: the refusal log's default client address. */
  readonly socketAddress?: string | undefined;
  /** The exchange as a web `Request` (the SDK's path, `tenantFrom`, `clientAddress`), built once, when first asked. */
  request(): Request;
}

/** The native path's answer, a JSON document sent with HTTP 200. */
export interface NativeJson {
  readonly json: string;
}

/** The MCP endpoint: for web `Request`s, and for any carrier through {@link EndpointExchange}. */
export interface McpEndpoint {
  fetch(request: Request): Promise<Response>;
  /** Never rejects: a failure answers a bare JSON-RPC internal error (500) and goes to `onError`. */
  serve(exchange: EndpointExchange): Promise<Response | NativeJson>;
}

/** The MCP endpoint behind `createHttpHandler` and `createNodeListener` (one admission, one native path). */
export function mcpEndpoint<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: HttpOptions = {},
): McpEndpoint {
  refuseMovedOnerror(options, 'createHttpHandler', (m) => new ConfigurationError(m));
  const report = reporter(server, 'http');
  const admitHttp = httpAdmission(server, options, 'createHttpHandler', report);
  const log = refusalLogOf(options.logger, server);
  const handlers = toolHandlers(server, report, 'http');
  const native = options.native === false ? undefined : nativeServing(server, handlers, report);
  const mcp = createMcpHandler(
    (ctx) => sdkServerWith(handlers, server, async () => connectionOf<TRight>(ctx.authInfo)),
    {
      legacy: options.legacy ?? 'stateless',
      maxRequestBodySize: byteLimit(options.maxBodyBytes, 'createHttpHandler'),
      onerror: sdkOnerror(report),
    },
  );

  const answer = async (exchange: EndpointExchange): Promise<Response | NativeJson> => {
    const clientAddress = () =>
      options.clientAddress ? options.clientAddress(exchange.request()) : exchange.socketAddress;
    const admission = await admitHttp({
      method: exchange.method,
      header: exchange.header,
      readBody: exchange.readBody,
      tenant: () => options.tenantFrom?.(exchange.request()),
      clientAddress,
    });
    if (!admission.ok) return responseOf(admission.answer);
    const { connection } = admission;
    if (native && exchange.method === 'POST') {
      const json = await native(exchange, admission.body, connection);
      if (json !== undefined) return { json };
    }
    const request = exchange.request();
    const authInfo: AuthInfo = {
      token: '[redacted]',
      clientId: connection.clientName,
      scopes: [...connection.rights],
      extra: { [CONNECTION_KEY]: connection },
    };
    // GET and DELETE are answered 405 (stateless serving): clients probe for a stream that way, no mistake
    if (request.method !== 'POST')
      return (await capErrorResponse(await mcp.fetch(request, { authInfo }))).response;
    const { response, error } = await capErrorResponse(
      await mcp.fetch(request, { authInfo, parsedBody: admission.body }),
    );
    if (error && response.status < 500) sdkMistake(log, clientAddress, response.status, error.message);
    return response;
  };

  const serve = async (exchange: EndpointExchange): Promise<Response | NativeJson> => {
    try {
      return await answer(exchange);
    } catch (error) {
      // an admission guard, tenantFrom or the authenticator threw: fail closed, name no cause
      report(error);
      const { code, message } = internalProtocolError();
      return Response.json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status: 500 });
    }
  };

  return {
    serve,
    async fetch(request) {
      const answered = await serve({
        method: request.method,
        header: (name) => request.headers.get(name),
        readBody: (limit) => readJsonBody(request, limit),
        signal: request.signal,
        request: () => request,
      });
      return answered instanceof Response ? answered : new Response(answered.json, JSON_OK);
    },
  };
}

const JSON_OK = { status: 200, headers: { 'content-type': 'application/json' } } as const;

function connectionOf<TRight extends string>(authInfo: AuthInfo | undefined): Connection<TRight> {
  const connection = authInfo?.extra?.[CONNECTION_KEY];
  if (!connection) throw admissionProtocolError({ status: 401, reason: 'No authenticated connection.' });
  return connection as Connection<TRight>;
}

/** An answer admission gave itself, as a web `Response`. */
const responseOf = (answer: HttpAnswer) =>
  new Response(answer.body, { status: answer.status, headers: answer.headers });

/** An error the SDK answered with a 4xx, as a protocol mistake of the client: the capped message, hidden characters removed. */
function sdkMistake(
  log: RefusalLog,
  addressOf: () => string | undefined,
  status: number,
  message: unknown,
): void {
  let clientAddress: string | undefined;
  try {
    clientAddress = addressOf();
  } catch {
    clientAddress = undefined;
  }
  const reason = typeof message === 'string' ? stripHidden(message) : 'Refused by the MCP SDK.';
  log.refused({ refusal: { status, reason }, step: 'request', transport: 'http', clientAddress });
}
