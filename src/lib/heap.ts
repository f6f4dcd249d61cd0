import v8 from 'node:v8';

/**
 * Lets V8's young generation grow again under load, after bin/switchboard.js held it at its first
 * size for the start (2 is V8's default growth factor). Without it, a server that has started keeps
 * the young generation that loading its code needed: about 20 MB of resident memory more at idle.
 */
export function releaseYoungGeneration(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=2');
}
