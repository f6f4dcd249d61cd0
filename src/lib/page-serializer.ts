/**
 * A list page's answer written item by item (decision 0100).
 *
 * fast-json-stringify writes an answer as one string joined from thousands of pieces. Node reads it
 * whole (its byte length for `content-length`, then its UTF-8 bytes), and V8 first copies it into a
 * single string. Past 128 KB of string (64 K characters once any of its text is outside Latin-1, as
 * in most transcripts) that copy is a large object of its own, on pages mapped for it alone: a
 * quarter of the CPU a page of 20 calls took (docs/benchmarks.md, "Again on 2026-12-04"). So a
 * page is serialized an item at a time, with the route's own schemas, and turned into UTF-8 a chunk
 * at a time; chunks stay far under that size. A small page is still the one string it always was.
 * The bytes are the same as the whole page's serializer writes.
 */

/** A chunk is turned into bytes once it holds this many characters: far from 64 K, where V8's copy grows large. */
export const PAGE_CHUNK_CHARACTERS = 16_384;

const OPEN = '{"data":[';

type Serialize = (doc: unknown) => string;
type SchemaObject = {
  $ref?: unknown;
  type?: unknown;
  properties?: Record<string, { type?: unknown; items?: unknown }>;
};

/**
 * The schema of a page's items, when `schema` (or the shared schema it refers to) is a page:
 * an object whose first property is the array `data`, as every list route's answer is (`PageOf`).
 */
export function pageItemSchema(schema: unknown, shared: Record<string, unknown>): object | undefined {
  let page = schema as SchemaObject | undefined;
  if (typeof page?.$ref === 'string') page = shared[page.$ref] as SchemaObject | undefined;
  if (page?.type !== 'object' || !page.properties) return undefined;
  const [first] = Object.keys(page.properties);
  const data = page.properties.data;
  if (first !== 'data' || data?.type !== 'array' || typeof data.items !== 'object' || data.items === null) {
    return undefined;
  }
  return data.items;
}

/**
 * Serializes a page with `whole` (the page's own serializer) for everything but its items, and
 * `item` for each of them. Answers a string when the page is small, its UTF-8 bytes when not.
 */
export function pageSerializer(whole: Serialize, item: Serialize): (page: unknown) => string | Buffer {
  return (page) => {
    const data = (page as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length === 0) return whole(page);
    // The rest of the page as its serializer writes it, with no items: `{"data":[],"nextCursor":…}`.
    const rest = whole({ ...(page as object), data: [] });
    if (!rest.startsWith(`${OPEN}]`)) return whole(page);
    const chunks: Buffer[] = [];
    let text = OPEN;
    for (let i = 0; i < data.length; i++) {
      text += i === 0 ? item(data[i]) : `,${item(data[i])}`;
      if (text.length >= PAGE_CHUNK_CHARACTERS) {
        chunks.push(Buffer.from(text));
        text = '';
      }
    }
    text += rest.slice(OPEN.length);
    if (chunks.length === 0) return text;
    chunks.push(Buffer.from(text));
    return Buffer.concat(chunks);
  };
}
