// The version a build of cni-ts reports and records in the manifest of what it installed.
// CNI_TS_BUILD_LABEL is defined by the build (scripts/build/bundle.ts, from the environment
// variable of that name): a build labelled differently differs in every file's bytes, which is
// how e2e/install/ makes an "older build" of the same sources.
import pkg from '../../package.json' with { type: 'json' };

declare const CNI_TS_BUILD_LABEL: string;

const label = typeof CNI_TS_BUILD_LABEL === 'undefined' ? '' : CNI_TS_BUILD_LABEL;
export const VERSION: string = label === '' ? pkg.version : `${pkg.version}+${label}`;
