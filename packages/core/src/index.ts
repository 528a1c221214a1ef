export type {
  AdmissionRefusal,
  AdmissionRequest,
  AuthDecision,
  Authenticate,
  Connection,
  ConnectionScope,
  PresentedCredential,
} from './context.js';
export type {
  ApprovalDecision,
  ApprovalMode,
  ApprovalOptions,
  ApprovalStatus,
  Approvals,
  ApprovalView,
  Approver,
} from './contract/approval.js';
export type {
  BuildContext,
  CallGuardContext,
  Conventions,
  GuardArgument,
  GuardArguments,
  GuardedTool,
  ToolCall,
  UnitGuardContext,
} from './contract/call.js';
export { DEFAULT_CONVENTIONS } from './contract/call.js';
export type { Allowed, Decision, Refusal } from './contract/decision.js';
export { ALLOW, allow, deny } from './contract/decision.js';
export type { CallResult } from './contract/envelope.js';
export { REPLAY_NOTE } from './contract/envelope.js';
export type {
  AdmissionDecision,
  AdmissionGuard,
  CallGuard,
  ClaimDecision,
  ClaimGuard,
  Guard,
  GuardDuty,
  GuardKind,
  Lease,
  OutputGuard,
  OutwardGuard,
  PendingDraft,
  RateGuard,
  ToolGuard,
  UnitGuard,
  VisibilityGuard,
  VisibilityPurpose,
} from './contract/guard.js';
export { checkGuard, defineGuard, GUARD_KINDS } from './contract/guard.js';
export type {
  ApprovalLink,
  Outcome,
  PreviewOutcome,
  RefusedOutcome,
  ResultOutcome,
} from './contract/outcome.js';
export type { ClaimedAction } from './contract/pending.js';
export type {
  ContextOf,
  Prepared,
  RunContext,
  ToolDefinition,
  ToolGuardBuilders,
  ToolGuardKit,
  ToolGuards,
  ToolListing,
  ToolSpec,
} from './contract/tool.js';
export type { Effect, EffectAnnotations, EffectTraits, OutwardEffect } from './effects.js';
export { EFFECT_TRAITS, EFFECTS, isOutward } from './effects.js';
export type { ErrorCode, NextCall, ToolErrorInit } from './errors.js';
export {
  ConfigurationError,
  ERROR_CODES,
  HOST_ERROR_CODES,
  isOutage,
  isOutageCode,
  ToolError,
  TransactionConflict,
} from './errors.js';
export type { Gatehouse, GatehouseOptions } from './gatehouse.js';
export { createGatehouse } from './gatehouse.js';
export { canonicalJson, digest, sha256Hex } from './hashing.js';
export type { Json, JsonObject, JsonSchema } from './json.js';
export type { CallLogRecord, Logger } from './logging.js';
export { silentLogger } from './logging.js';
export type { ArgumentCaps } from './pipeline/caps.js';
export { DEFAULT_ARGUMENT_CAPS } from './pipeline/caps.js';
export { ClaimLost } from './pipeline/claim.js';
export type { TokenFate, TokenStage } from './pipeline/outward.js';
export { OUTWARD_TOKEN_FATES, TOKEN_FATES, tokenFate } from './pipeline/outward.js';
export type { ToolAnswer } from './pipeline/runner.js';
export { OUTAGE_RETRY_SECONDS } from './pipeline/runner.js';
export type { UnitOfWork } from './pipeline/unitOfWork.js';
export { separateCommits } from './pipeline/unitOfWork.js';
export type { CallPhase, PortMap, PortSpec, Ports } from './ports.js';
export type { PresentEnv, Presenter } from './presenter.js';
export {
  DEFAULT_INSTRUCTION_PATTERNS,
  DEFAULT_TENANT_LIKE_NAMES,
  RESERVED_TOOL_NAMES,
  TOOL_NAME_PATTERN,
} from './schema/checks.js';
export type { InferInput, InputIssue, StandardInput, ToolInput } from './schema/compileInput.js';
export type { JsonSchemaInput } from './schema/jsonSchemaInput.js';
export { jsonSchema } from './schema/jsonSchemaInput.js';
export type { ErrorLogOptions } from './serve/errorLog.js';
export { errorLog } from './serve/errorLog.js';
export type { ProtectedResourceMetadata, ProtectedResourceOptions } from './serve/oauthMetadata.js';
export { PROTECTED_RESOURCE_PATH, protectedResourceMetadata } from './serve/oauthMetadata.js';
export type { ErrorFacts, OnError } from './serve/report.js';
export type { CallOptions, GatehouseServer, ServerOptions } from './server.js';
export type { AuditEntry, AuditQuery, AuditRow, AuditStore } from './storage/auditStore.js';
export { auditRow, MemoryAuditStore } from './storage/auditStore.js';
export type {
  AuthorizationIndex,
  AuthorizationRecord,
  AuthorizationStore,
} from './storage/authorizationStore.js';
export { MAX_AUTHORIZATION_LIST, MemoryAuthorizationStore } from './storage/authorizationStore.js';
export type {
  CredentialDirectory,
  CredentialQuery,
  CredentialRecord,
  CredentialStore,
} from './storage/credentialStore.js';
export { MemoryCredentialStore } from './storage/credentialStore.js';
export type {
  PendingAction,
  PendingActionStore,
  PendingActionUpdate,
  PendingClaim,
  PendingStatus,
} from './storage/pendingActionStore.js';
export { MemoryPendingActionStore } from './storage/pendingActionStore.js';
export type { BucketLimit, RateBucketStore, TakeResult } from './storage/rateBucketStore.js';
export { MemoryRateBucketStore } from './storage/rateBucketStore.js';
export type { ReplayBegin, ReplayStore } from './storage/replayStore.js';
export { MemoryReplayStore } from './storage/replayStore.js';
export type { SwitchStore } from './storage/switchStore.js';
export { MemorySwitchStore } from './storage/switchStore.js';
export type {
  RequestEnd,
  RequestFacts,
  RequestSpan,
  StageDecision,
  StageName,
  StageSpan,
  Telemetry,
} from './telemetry.js';
export { NOOP_SPAN, noopTelemetry } from './telemetry.js';
export { UNTRUSTED_TEXT_NOTE } from './text.js';
export type { PresentedTime } from './time.js';
