import { Type } from '@sinclair/typebox';
import { ref } from '../lib/schema.js';

export const ImportProviderToolsBody = Type.Object(
  { providerToolIds: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100 }) },
  { additionalProperties: false },
);

/** A tool defined at the agent's provider: what it is, and whether and how it would import. */
export const ProviderToolView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    type: Type.String({ description: "The provider's kind of tool" }),
    description: Type.String(),
    importable: Type.Boolean(),
    problems: Type.Array(Type.String(), { description: 'Why it cannot be imported (empty when it can)' }),
    warnings: Type.Array(Type.String(), { description: 'What the import leaves out or changes' }),
  },
  { $id: 'ProviderTool' },
);

export const ProviderToolList = Type.Object({ data: Type.Array(ref(ProviderToolView)) }, { $id: 'ProviderToolList' });

export const ProviderToolImport = Type.Object(
  {
    imported: Type.Array(
      Type.Object({ providerToolId: Type.String(), toolId: Type.String(), warnings: Type.Array(Type.String()) }),
    ),
    skipped: Type.Array(Type.Object({ providerToolId: Type.String(), reasons: Type.Array(Type.String()) })),
  },
  { $id: 'ProviderToolImport' },
);

export const PROVIDER_TOOL_VIEWS = [ProviderToolView, ProviderToolList, ProviderToolImport];
