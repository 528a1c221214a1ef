import type { ContractCheck } from './check.js';
import { daylightSavingCheck, silentEffectCheck, unknownArgumentsCheck } from './checks/arguments.js';
import { confirmCheck } from './checks/confirm.js';
import {
  canaryCheck,
  canarySeenCheck,
  decoyCheck,
  descriptionCheck,
  loggedArgumentsCheck,
} from './checks/content.js';
import { errorEnvelopeCheck, outputSchemaCheck, resultShapeCheck } from './checks/envelope.js';
import {
  badOriginCheck,
  credentialPairingsCheck,
  globalSwitchCheck,
  tenantSwitchCheck,
} from './checks/gate.js';
import { listingAgreesCheck } from './checks/listing.js';
import { deactivatedCheck, hiddenToolCheck, limitedGrantCheck, roleRemovedCheck } from './checks/rights.js';
import { foreignIdsCheck, foreignRowsCheck, tenantParameterCheck } from './checks/tenancy.js';
import {
  auditCheck,
  batchCountCheck,
  duplicateCheck,
  replayCheck,
  staleVersionCheck,
} from './checks/writes.js';

/**
 * Every contract check, in the order the suite runs them. The envelope
 * checks (I18, I19) come last: they judge every result the earlier checks saw.
 * Checks of features a fixture does not declare (replay, confirm, audit,
 * duplicate, version, batch) are not registered for it.
 */
export const CONTRACT_CHECKS: readonly ContractCheck[] = Object.freeze([
  foreignIdsCheck,
  foreignRowsCheck,
  tenantParameterCheck,
  roleRemovedCheck,
  deactivatedCheck,
  credentialPairingsCheck,
  badOriginCheck,
  globalSwitchCheck,
  tenantSwitchCheck,
  limitedGrantCheck,
  hiddenToolCheck,
  listingAgreesCheck,
  silentEffectCheck,
  confirmCheck,
  replayCheck,
  duplicateCheck,
  staleVersionCheck,
  batchCountCheck,
  unknownArgumentsCheck,
  auditCheck,
  canarySeenCheck,
  canaryCheck,
  descriptionCheck,
  decoyCheck,
  loggedArgumentsCheck,
  daylightSavingCheck,
  errorEnvelopeCheck,
  outputSchemaCheck,
  resultShapeCheck,
]);
