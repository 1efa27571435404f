/** MPP (the `Payment` HTTP authentication scheme) as a rail: the rail, its two methods and its problems. */
export { MppRail, type ChallengeLedger, type MppRailOptions, type MppRequestLike, type MppRoute, type MppVerifiedEvm, type MppVerifiedTempo, type MppVerifyResult } from './rail.ts';
export { challengeNonce } from './evm-method.ts';
export { tempoConfigFromEnv, type TempoRailConfig } from './tempo-config.ts';
export type { MppProblem, MppProblemKind } from './problems.ts';
