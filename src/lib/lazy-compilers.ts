import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { pageItemSchema, pageSerializer } from './page-serializer.js';

/**
 * Schemas are compiled when a route first uses them, not when the server starts (decision 0034).
 * With a schema for every answer of every route (issue 16), compiling them all up front took about
 * a second of every start: fast-json-stringify for ~300 answers, Ajv for the requests. A route's
 * first request now pays for its own schemas (a few milliseconds), and `npm start` stays under 3 s.
 * `compileAll` compiles whatever is still waiting, so a test can show that every schema compiles.
 */
export function createLazyCompilers() {
  const waiting = new Set<() => void>();

  /** Runs `compile` once, the first time the function it returns is called (or at `compileAll`). */
  function once<T>(compile: () => T): () => T {
    let compiled: { value: T } | undefined;
    const get = () => {
      if (!compiled) {
        compiled = { value: compile() };
        waiting.delete(get);
      }
      return compiled.value;
    };
    waiting.add(get);
    return get;
  }

  const buildEagerSerializer = SerializerSelector();
  return {
    /**
     * Fastify's `schemaController.compilersFactory.buildSerializer`: fast-json-stringify, compiled on
     * first use. A list page is written item by item (`src/lib/page-serializer.ts`, decision 0100).
     */
    buildSerializer(externalSchemas?: unknown, options?: Parameters<typeof buildEagerSerializer>[1]) {
      const compile = buildEagerSerializer(externalSchemas, options);
      const shared = (externalSchemas ?? {}) as Record<string, unknown>;
      return (route: Parameters<typeof compile>[0]) => {
        const serializer = once(() => {
          const items = pageItemSchema(route.schema, shared);
          if (!items) return compile(route);
          // Fastify sends a Buffer as it sends a string (`onSendEnd` in its reply.js); its types say string.
          return pageSerializer(compile(route), compile({ ...route, schema: items })) as (doc: unknown) => string;
        });
        return (doc: unknown) => serializer()(doc);
      };
    },

    /**
     * A validator that compiles on first use. Fastify reads `errors` from the function it was
     * given, so the compiled validator's errors are copied onto it after each call.
     */
    validator<V extends ((data: unknown) => boolean | Promise<unknown>) & { errors?: unknown }>(compile: () => V): V {
      const validate = once(compile);
      const lazy = ((data: unknown) => {
        const compiled = validate();
        const valid = compiled(data);
        lazy.errors = compiled.errors;
        return valid;
      }) as V;
      return lazy;
    },

    /** Compiles every schema not compiled yet; throws the first compilation error. */
    compileAll(): void {
      for (const compile of [...waiting]) compile();
    },
  };
}

export type LazyCompilers = ReturnType<typeof createLazyCompilers>;
