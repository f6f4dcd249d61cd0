import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ToolHeader, ToolParameter, ToolVariable } from '../../tools/tools.schemas.js';
import { calls } from './calls.js';
import { organizations } from './organizations.js';

/**
 * A header as stored: a secret Fixed value is AES-256-GCM ciphertext bound to the tool id
 * (`sealed`), never plain text; every other value is stored as written.
 */
export type StoredToolHeader = Omit<ToolHeader, 'value'> & { value?: string; sealed?: string };

/** An organization's HTTP action that agents call during calls (docs/interface.md#tools). */
export const tools = pgTable(
  'tools',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    name: text('name').notNull(),
    description: text('description').notNull(),
    method: text('method').notNull(),
    url: text('url').notNull(),
    headers: jsonb('headers').$type<StoredToolHeader[]>().notNull(),
    parameters: jsonb('parameters').$type<ToolParameter[]>().notNull(),
    variables: jsonb('variables').$type<ToolVariable[]>().notNull(),
    timeoutMs: integer('timeout_ms').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('tools_org_name_uq').on(t.organizationId, t.name),
    index('tools_org_id_idx').on(t.organizationId, t.id),
  ],
);

/** What a tool invocation sent, as recorded: secret header values are masked before they get here. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

/** One run of a tool during a call: what the agent asked, what was sent, what came back. */
export const toolInvocations = pgTable(
  'tool_invocations',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id').notNull(),
    callId: text('call_id')
      .notNull()
      .references(() => calls.id),
    /** No foreign key: a deleted tool's invocations stay on the calls that made them. */
    toolId: text('tool_id'),
    toolName: text('tool_name').notNull(),
    arguments: jsonb('arguments').$type<unknown>().notNull(),
    /** Null when nothing was sent (the arguments failed their checks, the tool is not attached …). */
    request: jsonb('request').$type<RecordedRequest>(),
    responseStatus: integer('response_status'),
    responseExcerpt: text('response_excerpt'),
    /** The text handed back to the agent. */
    result: text('result').notNull(),
    error: text('error'),
    latencyMs: integer('latency_ms').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('tool_invocations_call_idx').on(t.callId, t.id)],
);
