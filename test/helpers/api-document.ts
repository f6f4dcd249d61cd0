import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * The one check that every answer the HTTP tests receive is what `GET /openapi.json` documents
 * (issue 16): its route and status are documented, and its body validates against the schema the
 * document gives for them. `startTestApp`'s `request` and `clickToCall` run it on every answer, so
 * the document cannot drift from the code without a test failing.
 */
/** The problems with one answer; empty when it conforms (or its path is no documented route). */
export type AnswerCheck = (answer: {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
}) => string[];

interface Route {
  path: string;
  pattern: RegExp;
  params: number;
}

const pointer = (segments: string[]) =>
  segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

export function answerChecker(document: any): AnswerCheck {
  const ajv = addFormats.default(new Ajv2020.default({ strict: false, allErrors: true }));
  ajv.addSchema(document, 'openapi');
  const routes: Route[] = Object.keys(document.paths)
    .map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      params: (path.match(/\{/g) ?? []).length,
    }))
    // `/v1/tools/preview` before `/v1/tools/{id}`: the literal path wins, as in the router.
    .sort((a, b) => a.params - b.params);
  const validators = new Map<string, ReturnType<Ajv2020.default['compile']>>();

  return ({ method, path, status, contentType, body }) => {
    const bare = path.split('?')[0] as string;
    const lower = method.toLowerCase();
    const route = routes.find((r) => r.pattern.test(bare) && document.paths[r.path][lower]);
    // Not a documented route: the dashboard's pages, or a path no route has (answered 404).
    if (!route) return [];
    const where = `${method} ${route.path} ${status}`;
    const response = document.paths[route.path][lower].responses[String(status)];
    if (!response) return [`${where}: the document has no answer for this status`];
    if (status === 204 || status === 304) return [];
    const type = (contentType ?? '').split(';')[0]?.trim() ?? '';
    const media = Object.keys(response.content ?? {}).find((documented) => documented === type);
    if (!media)
      return [
        `${where}: the document has no ${type || 'body'} answer (it has ${Object.keys(response.content ?? {}).join(', ') || 'none'})`,
      ];
    if (!/json/.test(media)) return [];
    const key = `${route.path} ${lower} ${status} ${media}`;
    let validate = validators.get(key);
    if (!validate) {
      const at = pointer(['paths', route.path, lower, 'responses', String(status), 'content', media, 'schema']);
      validate = ajv.compile({ $ref: `openapi#/${at}` });
      validators.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${where}: ${e.instancePath || '$'} ${e.message} ${JSON.stringify(e.params)}`,
    );
  };
}
