export * from './agents.js';
export * from './calls.js';
export * from './deliveries.js';
export * from './integrations.js';
export * from './organizations.js';
export * from './provider-credentials.js';
export * from './provider-tools.js';
export * from './tools.js';
