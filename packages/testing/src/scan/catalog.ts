import type { ScanCheck } from './check.js';
import { tenantArgumentsCheck, unknownArgumentsCheck } from './checks/arguments.js';
import { authenticationCheck, originHostCheck, resourceMetadataCheck } from './checks/auth.js';
import { readOnlyRepeatCheck, twoStepCheck } from './checks/behaviour.js';
import {
  descriptionsCheck,
  errorEnvelopeCheck,
  errorLeaksCheck,
  outputSchemaCheck,
  resultShapeCheck,
} from './checks/content.js';
import { limitsCheck, rateLimitCheck } from './checks/limits.js';
import { protocolHygieneCheck } from './checks/protocol.js';

/**
 * Every check of `gatehouse scan`, in the order they run. The error and
 * result checks come after every check that calls tools, since they judge
 * every answer the scan saw; the rate check comes last, since it spends the
 * server's rate buckets.
 */
export const SCAN_CHECKS: readonly ScanCheck[] = Object.freeze([
  authenticationCheck,
  resourceMetadataCheck,
  originHostCheck,
  protocolHygieneCheck,
  descriptionsCheck,
  outputSchemaCheck,
  unknownArgumentsCheck,
  tenantArgumentsCheck,
  limitsCheck,
  readOnlyRepeatCheck,
  twoStepCheck,
  errorLeaksCheck,
  errorEnvelopeCheck,
  resultShapeCheck,
  rateLimitCheck,
]);
