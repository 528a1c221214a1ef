/**
 * Adopt Gatehouse in place on an `@modelcontextprotocol/sdk` (v1) server:
 * {@link mountGatehouse} adds Gatehouse's tools beside the server's own
 * tools, resources and prompts; {@link createAdmissionMiddleware} is the HTTP admission
 * for node:http or Express. Loads the v1 SDK only, never SDK v2.
 *
 * @packageDocumentation
 */
export type { StdioLineTransportOptions } from './serve/lineTransport.js';
export { StdioLineTransport } from './serve/lineTransport.js';
export type { UnavailableOptions } from './serve/unavailable.js';
export type {
  AdmissionMiddleware,
  AdmissionMiddlewareOptions,
  AdmittedRequest,
} from './serve/v1Admission.js';
export { createAdmissionMiddleware } from './serve/v1Admission.js';
export type { MountOptions } from './serve/v1Tools.js';
export { mountGatehouse } from './serve/v1Tools.js';
