export { expandSources, globToRegExp } from './architecture/files.js';
export type { ArchitectureRule } from './architecture/rules.js';
export { AMBIENT_USER_RULES, forbidCode, forbidModule, PERSISTENCE_RULES } from './architecture/rules.js';
export type { ArchitectureFinding, ArchitectureScanOptions } from './architecture/scan.js';
export {
  blankComments,
  expectToolArchitecture,
  formatArchitectureFindings,
  scanSource,
  scanToolSources,
} from './architecture/scan.js';
export { CONTRACT_CHECKS } from './contract/catalog.js';
export type { CheckContext, ContractCheck, Selection, ToolCheckContext } from './contract/check.js';
export { defineServerCheck, defineToolCheck } from './contract/check.js';
export type {
  ClientOpener,
  ClientTarget,
  ContractCallOptions,
  ContractClient,
  ContractReply,
  ReplyListener,
} from './contract/client.js';
export { openClient, stdioReply } from './contract/client.js';
export type { DescribeContractOptions } from './contract/describeContract.js';
export { describeContract } from './contract/describeContract.js';
export type { RawToolResult } from './contract/envelope.js';
export { errorEnvelopeFindings, OutputSchemas, resultShapeFindings } from './contract/envelope.js';
export type {
  ArgsSource,
  ContractActor,
  ContractAuditRow,
  ContractCapabilities,
  ContractFixture,
  ContractGrant,
  ContractHost,
  ForeignCredentials,
  HostEndpoint,
  ToolFixture,
} from './contract/fixture.js';
export type { ContractPlan, ContractTool, HostFeature } from './contract/plan.js';
export { effectFromAnnotations, planContract } from './contract/plan.js';
export type { CheckOutcome, ContractCase, RunContractOptions } from './contract/run.js';
export { casesOf, formatOutcomes, runCase, runContract, runContractCheck } from './contract/run.js';
export { adversarialValue, argumentsFor } from './fuzz/arbitraries.js';
export type { FuzzOptions, FuzzReport } from './fuzz/fuzzTools.js';
export { fuzzContract, fuzzTool, replyFindings } from './fuzz/fuzzTools.js';
export type {
  HttpReply,
  HttpRequestOptions,
  HttpSendOptions,
  PreparedRequest,
  RawHttpClientOptions,
} from './httpClient.js';
export { RawHttpClient } from './httpClient.js';
export { MCP_META_KEYS } from './internal/envelope.js';
export type { ProcessExit, RawStdioClientOptions, StdioSendOptions } from './stdioClient.js';
export { RawStdioClient } from './stdioClient.js';
export { describeAuditStore } from './stores/auditStore.js';
export { describeCredentialStore } from './stores/credentialStore.js';
export type { StoreFactory, StoreFixture } from './stores/fixture.js';
export { describePendingActionStore } from './stores/pendingActionStore.js';
export { describeRateBucketStore } from './stores/rateBucketStore.js';
export { describeReplayStore } from './stores/replayStore.js';
export { describeSwitchStore } from './stores/switchStore.js';
export { parseErrorJsonLine, toolResultText } from './toolResult.js';
export type {
  ClientInfo,
  JsonRpcError,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcResponse,
  McpEra,
  RawMcpClient,
  RawReply,
  RequestOptions,
} from './types.js';
