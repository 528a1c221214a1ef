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
export type { DescribedTool } from './contract/descriptionLint.js';
export { descriptionFindings } from './contract/descriptionLint.js';
export type { RawToolResult } from './contract/envelope.js';
export {
  errorEnvelopeFindings,
  leakFindings,
  OutputSchemas,
  redactSecrets,
  resultShapeFindings,
} from './contract/envelope.js';
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
  ListingFixture,
  ToolFixture,
} from './contract/fixture.js';
export type { ContractPlan, ContractTool, HostFeature } from './contract/plan.js';
export { effectFromAnnotations, planContract } from './contract/plan.js';
export type { CheckOutcome, ContractCase, RunContractOptions } from './contract/run.js';
export { casesOf, formatOutcomes, runCase, runContract, runContractCheck } from './contract/run.js';
export type { FormPage, FormPostOptions } from './formBrowser.js';
export { cookieFrom, csrfIn, FormBrowser, hiddenFieldsIn } from './formBrowser.js';
export type {
  HttpReply,
  HttpRequestOptions,
  HttpSendOptions,
  PreparedRequest,
  RawHttpClientOptions,
} from './httpClient.js';
export { RawHttpClient } from './httpClient.js';
export { MCP_META_KEYS } from './internal/envelope.js';
export { SCAN_CHECKS } from './scan/catalog.js';
export type { Judged, ScanCheck, ScanCheckSpec } from './scan/check.js';
export { defineScanCheck } from './scan/check.js';
export type { CliIo } from './scan/cli.js';
export { runCli } from './scan/cli.js';
export type { ScanCommand, ScanFormat } from './scan/cliArgs.js';
export { parseScanArgs, SCAN_USAGE, ScanUsageError, splitCommand } from './scan/cliArgs.js';
export type { CallRecord, ScanSettings } from './scan/context.js';
export { ScanContext } from './scan/context.js';
export type { Discovery } from './scan/discover.js';
export { ScanUnreachableError } from './scan/discover.js';
export type { Exchange } from './scan/exchange.js';
export { parseScanFixture, readScanFixture } from './scan/fixtureFile.js';
export { renderMarkdown } from './scan/report/markdown.js';
export { renderScanReport } from './scan/report/render.js';
export { renderSarif } from './scan/report/sarif.js';
export { countVerdicts, scanExitCode, summaryByInvariant } from './scan/report/summary.js';
export { renderText } from './scan/report/text.js';
export type { RunScanOptions } from './scan/run.js';
export { runScan } from './scan/run.js';
export type { ScanEndpoint, SessionAuth } from './scan/session.js';
export { findToolSources, isGatehouseProject } from './scan/sources.js';
export type {
  Evidence,
  ScanFixture,
  ScanFixtureTool,
  ScanOutcome,
  ScanReport,
  ScanTool,
  SourceLocation,
  Verdict,
} from './scan/types.js';
export type {
  ProcessExit,
  RawStdioClientOptions,
  RawStdioStreamOptions,
  StdioConnection,
  StdioSendOptions,
} from './stdioClient.js';
export { RawStdioClient } from './stdioClient.js';
export type { SurfaceLockOptions, SurfaceLockReport } from './surface/check.js';
export {
  assertSurfaceLock,
  checkSurfaceLock,
  SURFACE_UPDATE_VARIABLE,
  SurfaceLockError,
} from './surface/check.js';
export type { SurfaceField, SurfaceFinding } from './surface/diff.js';
export { compareSurfaces, formatSurfaceFinding, formatSurfaceFindings } from './surface/diff.js';
export { parseSurfaceLock, renderSurfaceLock, SURFACE_LOCK_VERSION } from './surface/lockfile.js';
export type { SurfaceOptions, SurfaceTool, SurfaceToolset, ToolSurface } from './surface/snapshot.js';
export { surfaceOf, surfaceToolOf } from './surface/snapshot.js';
export type { ServedSurfaceOptions, SurfaceCaller } from './surface/sources.js';
export { servedSurface, serverSurface } from './surface/sources.js';
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
