/**
 * Adopt Gatehouse in place on an `@modelcontextprotocol/sdk` (v1) server:
 * {@link mountGatehouse} adds Gatehouse's tools beside the server's own
 * tools, resources and prompts; {@link createGateMiddleware} is the HTTP gate
 * for node:http or Express. Loads the v1 SDK only, never SDK v2.
 *
 * @packageDocumentation
 */
export type { StdioLineTransportOptions } from './serve/lineTransport.js';
export { StdioLineTransport } from './serve/lineTransport.js';
export type { UnavailableOptions } from './serve/unavailable.js';
export type { GatedRequest, GateMiddleware, GateMiddlewareOptions } from './serve/v1Gate.js';
export { createGateMiddleware } from './serve/v1Gate.js';
export type { MountOptions } from './serve/v1Tools.js';
export { mountGatehouse } from './serve/v1Tools.js';
