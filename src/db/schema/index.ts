export * from './agents.js';
export * from './calls.js';
export * from './organizations.js';
export * from './tools.js';
