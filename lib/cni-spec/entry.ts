// What a plugin's main.ts needs, and nothing more. The barrel (index.ts) would evaluate every
// module of the layer (zod, result conversion, delegation) on every start; through this file a
// start evaluates only the dispatcher, and each verb's code is imported when that verb runs.
export { cniMain } from './dispatch.ts';
export { ALL_VERSIONS } from './versions.ts';
