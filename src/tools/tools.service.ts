import { AGENT_TOPIC } from '../agents/agent-cache.js';
import type { ChangeFeed } from '../db/change-feed.js';
import type { StoredToolHeader } from '../db/schema/index.js';
import {
  ApiError,
  besideSchema,
  type FieldProblem,
  notFound,
  soundPart,
  topFieldOf,
  validationError,
} from '../errors.js';
import { SECRET_MASK, type SecretBox } from '../lib/crypto.js';
import { groupBy } from '../lib/group-by.js';
import { newId } from '../lib/ids.js';
import { toStorableJson } from '../lib/json-guard.js';
import type { OutboundClient } from '../lib/outbound-http.js';
import { decodeCursor, type Page, toPage } from '../lib/pagination.js';
import { isMask, originMoved, storedSecretProblem } from '../lib/write-only.js';
import type { ToolCallResult } from '../providers/voice-provider.js';
import { boundInvocationRecord } from './invocation-record.js';
import { type RunnableTool, runTool, type ToolRun } from './run-tool.js';
import { TOOL_TOPIC, type ToolCallCache } from './tool-call-cache.js';
import {
  checkToolDefinition,
  compileAiSchema,
  isSecretHeader,
  type JsonSchema,
  type ToolDefinition,
} from './tool-definition.js';
import { maskHeaders, type ToolRequest, type VariableLookup } from './tool-request.js';
import {
  type CallToolContext,
  MAX_INVOCATIONS_PER_CALL,
  type ToolInvocationRow,
  type ToolRow,
  type ToolsRepository,
} from './tools.repository.js';
import type {
  CreateToolInput,
  TestToolInput,
  ToolHeader,
  ToolInvocationView,
  ToolView,
  UpdateToolInput,
} from './tools.schemas.js';

/** A tool as the API shows it: secret header values masked, the model's schema compiled. */
export function toToolView(row: ToolRow): ToolView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    method: row.method as ToolView['method'],
    url: row.url,
    headers: row.headers.map(({ key, mode, secret, value, sealed }) => ({
      key,
      mode,
      value: sealed ? SECRET_MASK : (value ?? ''),
      secret: Boolean(secret),
    })),
    parameters: row.parameters,
    variables: row.variables,
    timeoutMs: row.timeoutMs,
    aiSchema: compileAiSchema(row.parameters),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Secret Fixed values are sealed at rest and read back masked; Variable ones are templates, shown as written. */
const isSealedHeader = (header: { key: string; mode: string; secret?: boolean }): boolean =>
  isSecretHeader(header) && header.mode === 'fixed';

/** A recorded request as shown (secret header values were masked before it was stored). */
function recordOf(request: ToolRequest | null, configured: { key: string; secret?: boolean }[]) {
  return request && { ...request, headers: maskHeaders(request.headers, configured) };
}

/** A tool invocation on a call, as the API shows it. */
export function toInvocationView(row: ToolInvocationRow): ToolInvocationView {
  return {
    id: row.id,
    toolId: row.toolId,
    name: row.toolName,
    arguments: row.arguments,
    request: row.request,
    response: row.responseStatus === null ? null : { status: row.responseStatus, body: row.responseExcerpt ?? '' },
    result: row.result,
    error: row.error,
    latencyMs: row.latencyMs,
    at: row.createdAt.toISOString(),
  };
}

const nameTaken = () =>
  new ApiError('conflict', 'A tool with this name already exists in the organization', [
    { path: '$.name', message: 'is already the name of another tool' },
  ]);

/** Lookups read own properties only: `{{constructor}}` must not find Object.prototype's. */
function own(record: Record<string, unknown>, name: string): string | undefined {
  if (!Object.hasOwn(record, name)) return undefined;
  const value = record[name];
  if (value === null || value === undefined || value === '') return undefined;
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * `{{name}}` during a call (docs/interface.md#tools): values collected earlier in the call (the arguments of
 * its earlier tool runs, later ones winning, then what the provider reported as collected), then
 * the click-to-call variables, then the tool variable's default, else "". An empty value counts as
 * not provided, so an optional click-to-call variable left empty falls back to the default.
 */
function callLookup(context: CallToolContext, tool: RunnableTool): VariableLookup {
  return (name) =>
    own(context.toolValues, name) ??
    own(context.collectedData, name) ??
    own(context.variables, name) ??
    defaultOf(tool, name) ??
    '';
}

/** What a sent invocation adds to the call's collected values: its arguments, when they are an object. */
function collectedBy(run: ToolRun, args: unknown): Record<string, unknown> | null {
  if (!run.request || args === null || typeof args !== 'object' || Array.isArray(args)) return null;
  return args as Record<string, unknown>;
}

function defaultOf(tool: ToolDefinition, name: string): string | undefined {
  return tool.variables.find((variable) => variable.name === name)?.defaultValue;
}

export interface ToolsServiceDeps {
  repository: ToolsRepository;
  secretBox: SecretBox;
  /** The guarded HTTP client tools are sent with. */
  outbound: OutboundClient;
  /** `SWITCHBOARD_ALLOW_PRIVATE_NETWORKS`: whether a URL naming a private address is accepted at save time. */
  allowPrivateNetworks: boolean;
  /** Where tool changes (and the agents a deleted tool was detached from) are announced, so caches forget them. */
  changes: ChangeFeed;
  /** What tool calls read, kept in memory (evicted through `changes`). */
  cache: ToolCallCache;
  /** An invocation record could not be written (it is written after the agent has its result). */
  onError?: (error: unknown, callId: string) => void;
  /** A tool changed or was deleted: agents on real providers that use it publish again. */
  onToolChanged?: (toolId: string) => Promise<void>;
  /** A tool call during a call was answered: its result kind and latency (the metrics). */
  onToolRun?: (kind: string, latencyMs: number) => void;
}

export function createToolsService({
  repository,
  secretBox,
  outbound,
  allowPrivateNetworks,
  changes,
  cache,
  onError = () => {},
  onToolChanged = async () => {},
  onToolRun = () => {},
}: ToolsServiceDeps) {
  // Invocation records are written after the agent has its result, batched: a live call must not
  // wait for our bookkeeping. Until a call's records are written, what they collected is kept here
  // too, so the call's next tool run sees it; the call's end waits for them (`settled`).
  const recordWrites = new Map<string, Promise<void>>();
  // Tool calls made here per call, counted from those recorded when the call's first one came: past
  // MAX_INVOCATIONS_PER_CALL they are refused (the INSERT keeps the bound across processes).
  const invocationCounts = new Map<string, number>();
  const countInvocation = (callId: string, recorded: number): number => {
    const count = (invocationCounts.get(callId) ?? recorded) + 1;
    invocationCounts.delete(callId);
    invocationCounts.set(callId, count);
    // Calls that end in another process are never told here: the oldest are forgotten first.
    if (invocationCounts.size > 10_000) invocationCounts.delete(invocationCounts.keys().next().value as string);
    return count;
  };
  const unwrittenValues = new Map<string, Record<string, unknown>>();
  const record = (callId: string, write: Promise<void>, collected: Record<string, unknown> | null): void => {
    if (collected) unwrittenValues.set(callId, { ...unwrittenValues.get(callId), ...collected });
    const all: Promise<void> = Promise.all([recordWrites.get(callId), write.catch((error) => onError(error, callId))])
      .then(() => {})
      .finally(() => {
        if (recordWrites.get(callId) !== all) return;
        recordWrites.delete(callId);
        unwrittenValues.delete(callId);
      });
    recordWrites.set(callId, all);
  };

  /** Secret Fixed header values are sealed with the tool id as associated data; the rest stay readable. */
  const sealHeaders = (toolId: string, headers: ToolHeader[]): StoredToolHeader[] =>
    headers.map((header) => {
      const secret = isSecretHeader(header);
      return isSealedHeader(header)
        ? { key: header.key, mode: header.mode, secret, sealed: secretBox.encrypt(header.value, toolId) }
        : { key: header.key, mode: header.mode, secret, value: header.value };
    });

  const openHeaders = (toolId: string, headers: StoredToolHeader[]): ToolHeader[] =>
    headers.map(({ key, mode, secret, value, sealed }) => ({
      key,
      mode,
      secret,
      value: sealed ? secretBox.decrypt(sealed, toolId) : (value ?? ''),
    }));

  // Rows served from the tool-call cache are the same objects call after call: open their secrets once.
  const opened = new WeakMap<ToolRow, RunnableTool>();
  const runnable = (row: ToolRow): RunnableTool => {
    let tool = opened.get(row);
    if (!tool) {
      tool = { ...row, headers: openHeaders(row.id, row.headers) };
      opened.set(row, tool);
    }
    return tool;
  };

  /**
   * Headers as written by a client that read them masked (src/lib/write-only.ts): a value equal to
   * the mask keeps the secret stored under the same key, so a read-modify-write never replaces a
   * secret with dots, but only while it stays a sealed secret sent to the same origin. Headers left
   * out keep theirs likewise; when the URL moves to another origin every stored secret is asked for.
   */
  function unmask(
    headers: ToolHeader[] | undefined,
    current: ToolHeader[],
    destinationMoved: boolean,
  ): { headers: ToolHeader[]; problems: FieldProblem[] } {
    const problems: FieldProblem[] = [];
    const refuse = (i: number, message: string) => problems.push({ path: `$.headers[${i}].value`, message });
    if (headers === undefined) {
      current.forEach((header, i) => {
        const problem = isSealedHeader(header) ? storedSecretProblem('secret', destinationMoved) : undefined;
        if (problem) refuse(i, problem);
      });
      return { headers: current, problems };
    }
    const resolved = headers.map((header, i) => {
      if (!isMask(header.value)) return header;
      const stored = current.find((c) => c.key.toLowerCase() === header.key.toLowerCase() && isSealedHeader(c));
      // Left unsaid, `secret` stays what it was: the mask asks to keep the stored secret as it is.
      const kept = { ...header, secret: header.secret ?? stored?.secret };
      const problem = storedSecretProblem(
        !stored ? 'none' : isSealedHeader(kept) ? 'secret' : 'unsealed',
        destinationMoved,
      );
      if (stored && !problem) return { ...kept, value: stored.value };
      if (problem) refuse(i, problem);
      return { ...header, value: '' };
    });
    return { headers: resolved, problems };
  }

  /**
   * `masks`: the refused masks (see `unmask`); a value refused there is not judged again.
   * `schemaProblems`: what the route's schema refused (`schemaProblemsOf`); the definition then holds
   * stand-ins for the refused fields, and both kinds of problem are answered together (issue 18).
   */
  async function check(
    definition: ToolDefinition,
    masks: FieldProblem[] = [],
    schemaProblems: FieldProblem[] = [],
  ): Promise<void> {
    const refused = new Set(masks.map((problem) => problem.path));
    const standIns = new Set(schemaProblems.map((problem) => topFieldOf(problem.path)));
    const own = [
      ...masks,
      ...(await checkToolDefinition(definition, { allowPrivateNetworks, standIns })).filter(
        (p) => !refused.has(p.path),
      ),
    ];
    const problems = besideSchema(schemaProblems, own);
    if (problems.length > 0) throw validationError(problems, 'The tool definition is not valid');
  }

  async function findOrThrow(organizationId: string, id: string): Promise<ToolRow> {
    const row = await repository.find(organizationId, id);
    if (!row) throw notFound('Tool');
    return row;
  }

  return {
    /** `schemaProblems`: the body failed the route's schema; its sound fields are still judged, then all is refused. */
    async create(
      organizationId: string,
      body: CreateToolInput,
      schemaProblems: FieldProblem[] = [],
    ): Promise<ToolView> {
      const input = soundPart(body, schemaProblems);
      const definition = {
        method: input.method ?? 'POST',
        url: input.url ?? '',
        headers: input.headers ?? [],
        parameters: input.parameters ?? [],
        variables: input.variables ?? [],
      };
      await check(definition, unmask(definition.headers, [], false).problems, schemaProblems);
      const id = newId('tool');
      const row = await repository.insert({
        id,
        organizationId,
        // Past `check`, the body passed its schema: it is read whole.
        name: body.name,
        description: body.description ?? '',
        ...definition,
        headers: sealHeaders(id, definition.headers),
        timeoutMs: body.timeoutMs ?? 10_000,
      });
      if (row === 'name_taken') throw nameTaken();
      return toToolView(row);
    },

    /**
     * The JSON Schema the model would see for a definition that is still being edited, after the
     * same checks as create; nothing is written, and the name is not checked for uniqueness (saving
     * says so). A header value equal to the mask is what an editor of a saved tool read back: it
     * stands for the stored secret, which the schema does not depend on, so it is no problem here.
     */
    async preview(body: CreateToolInput, schemaProblems: FieldProblem[] = []): Promise<{ aiSchema: JsonSchema }> {
      const input = soundPart(body, schemaProblems);
      const parameters = input.parameters ?? [];
      await check(
        {
          method: input.method ?? 'POST',
          url: input.url ?? '',
          headers: input.headers ?? [],
          parameters,
          variables: input.variables ?? [],
        },
        [],
        schemaProblems,
      );
      return { aiSchema: compileAiSchema(parameters) };
    },

    async list(
      organizationId: string,
      query: { cursor?: string; limit?: number },
    ): Promise<Page<ToolView> & { total: number }> {
      const limit = query.limit ?? 20;
      const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const [rows, total] = await Promise.all([
        repository.list(organizationId, { beforeId, limit: limit + 1 }),
        repository.count(organizationId),
      ]);
      return { ...toPage(rows, limit, toToolView), total };
    },

    async get(organizationId: string, id: string): Promise<ToolView> {
      return toToolView(await findOrThrow(organizationId, id));
    },

    async update(
      organizationId: string,
      id: string,
      body: UpdateToolInput,
      schemaProblems: FieldProblem[] = [],
    ): Promise<ToolView> {
      const current = runnable(await findOrThrow(organizationId, id));
      const patch = soundPart(body, schemaProblems);
      const headers = unmask(patch.headers, current.headers, originMoved(current.url, patch.url));
      const definition: ToolDefinition = {
        method: patch.method ?? current.method,
        url: patch.url ?? current.url,
        headers: headers.headers,
        parameters: patch.parameters ?? current.parameters,
        variables: patch.variables ?? current.variables,
      };
      await check(definition, headers.problems, schemaProblems);
      const updated = await repository.update(organizationId, id, {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.timeoutMs !== undefined ? { timeoutMs: patch.timeoutMs } : {}),
        ...definition,
        headers: sealHeaders(id, definition.headers),
      });
      if (updated === 'name_taken') throw nameTaken();
      if (!updated) throw notFound('Tool');
      await changes.publish(TOOL_TOPIC, id);
      await onToolChanged(id);
      return toToolView(updated);
    },

    /** Deletes the tool and detaches it from every agent it served. */
    async remove(organizationId: string, id: string): Promise<void> {
      const detachedFrom = await repository.deleteAndDetach(organizationId, id);
      if (!detachedFrom) throw notFound('Tool');
      await changes.publish(TOOL_TOPIC, id);
      for (const agentId of detachedFrom) await changes.publish(AGENT_TOPIC, agentId);
      await onToolChanged(id);
    },

    /** Of `ids`, those naming no tool of the organization. */
    async missingIds(organizationId: string, ids: string[]): Promise<string[]> {
      const existing = await repository.existingIds(organizationId, ids);
      return ids.filter((id) => !existing.has(id));
    },

    /** Runs the tool once outside any call: `variables` stand in for the call's click-to-call variables. */
    async test(organizationId: string, id: string, input: TestToolInput) {
      const tool = runnable(await findOrThrow(organizationId, id));
      const variables = input.variables ?? {};
      const lookup: VariableLookup = (name) => own(variables, name) ?? defaultOf(tool, name) ?? '';
      const run: ToolRun = await runTool(tool, input.args ?? {}, lookup, outbound);
      return {
        request: recordOf(run.request, tool.headers),
        response: run.response,
        result: run.result,
        error: run.error,
        latencyMs: run.latencyMs,
      };
    },

    /**
     * A tool call during a call, as every provider delivers one (the simulator's scenario turns, a
     * real provider's tool webhook): runs the attached tool of that name with the call's values and
     * records the invocation on the call. Always answers with a result for the agent.
     */
    async invokeDuringCall(input: { callId: string; name: string; args: unknown }): Promise<ToolCallResult> {
      const context = await cache.context(input.callId, input.name, () =>
        repository.callToolContext(input.callId, input.name),
      );
      if (!context) {
        onToolRun('refused', 0);
        return { result: 'Error: this call is not known', error: 'unknown call' };
      }
      const unwritten = unwrittenValues.get(input.callId);
      if (unwritten) context.toolValues = { ...context.toolValues, ...unwritten };
      const refuse = (error: string): ToolRun => ({
        request: null,
        response: null,
        result: `Error: ${error}`,
        error,
        kind: 'refused',
        latencyMs: 0,
      });
      const tool = context.tool && runnable(context.tool);
      if (countInvocation(input.callId, context.invocationCount) > MAX_INVOCATIONS_PER_CALL) {
        // Not recorded either: the call's record keeps its bound (docs/decisions/0027-bounded-call-records.md).
        onToolRun('refused', 0);
        const error = `This call has made ${MAX_INVOCATIONS_PER_CALL} tool calls, the most one call may make`;
        return { result: `Error: ${error}`, error };
      }
      const run =
        context.status === 'ended'
          ? refuse('The call has ended')
          : !tool
            ? refuse(`No tool named "${input.name}" is attached to this agent`)
            : await runTool(tool, input.args, callLookup(context, tool), outbound);
      onToolRun(run.kind, run.latencyMs);
      const row = {
        id: newId('tinv'),
        organizationId: context.organizationId,
        callId: input.callId,
        toolId: context.tool?.id ?? null,
        toolName: input.name,
        arguments: input.args ?? {},
        request: recordOf(run.request, tool?.headers ?? []),
        responseStatus: run.response?.status ?? null,
        responseExcerpt: run.response?.body ?? null,
        result: run.result,
        error: run.error,
        latencyMs: run.latencyMs,
      };
      const collected = collectedBy(run, input.args);
      if (collected) cache.addValues(input.callId, collected);
      // The endpoint's answer and the provider's arguments may hold a NUL (json-guard.ts); the record
      // is written in a batch with other calls' records, which one bad string would fail too.
      // Within its budget too (invocation-record.ts), after mending: a mended string is shorter as JSON.
      const write = repository.recordInvocation(boundInvocationRecord(toStorableJson(row)));
      record(input.callId, collected ? write.then(() => cache.announceValues([input.callId])) : write, collected);
      return { result: run.result, error: run.error };
    },

    /** Resolves once every invocation of the call run so far is recorded. */
    async settled(callId: string): Promise<void> {
      await recordWrites.get(callId);
    },

    /** The call ended: its tool calls are refused from now on. */
    callEnded(callId: string): void {
      cache.forgetCall(callId);
      invocationCounts.delete(callId);
    },

    /** Waits for every invocation record still being written (before the database closes). */
    async drain(): Promise<void> {
      await Promise.all(recordWrites.values());
    },

    /** The tool invocations of these calls of the organization, by call id, oldest first. */
    async invocationsOf(organizationId: string, callIds: string[]): Promise<Map<string, ToolInvocationView[]>> {
      const byCall = groupBy(await repository.invocationsOf(organizationId, callIds), (row) => row.callId);
      return new Map([...byCall].map(([callId, rows]) => [callId, rows.map(toInvocationView)]));
    },
  };
}

export type ToolsService = ReturnType<typeof createToolsService>;
