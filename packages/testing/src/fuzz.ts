// The fuzzing entry: property-based arguments and the contract fuzzer. Needs fast-check (a peer).
export { adversarialValue, argumentsFor } from './fuzz/arbitraries.js';
export type { FuzzOptions, FuzzReport } from './fuzz/fuzzTools.js';
export { fuzzContract, fuzzTool, replyFindings } from './fuzz/fuzzTools.js';
