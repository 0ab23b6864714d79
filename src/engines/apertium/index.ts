// Public surface of the Apertium engine.

export { ApertiumEngine, type ApertiumEngineOptions, type ApertiumPairStats } from './apertium-engine.js';
export { discoverModes, type ApertiumMode } from './mode-discovery.js';
export { toTolkCode, baseOf } from './language-codes.js';
