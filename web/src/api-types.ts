// Generated from GET /openapi.json by openapi-typescript (test/openapi-client.test.ts): do not edit.
// UPDATE_API_TYPES=1 npx vitest run test/openapi-client.test.ts writes it again.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers */
        get: operations["getLiveness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the database is reachable and migrated (else 503) */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (text exposition format) */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The API reference, rendered (HTML) */
        get: operations["getApiReference"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The reference page's own files (Swagger UI) */
        get: operations["getApiReferenceFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an organization, its first user and API key; starts a session */
        post: operations["signup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log in: sets the session cookie */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log out: ends the session */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user and organization */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the organization's API keys (masked) */
        get: operations["listApiKeys"];
        put?: never;
        /** Create an API key (shown once) */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an API key */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/provider-credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List provider credentials */
        get: operations["listProviderCredentials"];
        put?: never;
        /** Add a Vapi or Retell credential */
        post: operations["createProviderCredential"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/provider-credentials/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a provider credential */
        get: operations["getProviderCredential"];
        put?: never;
        post?: never;
        /** Delete a provider credential (refused while an agent uses it) */
        delete: operations["deleteProviderCredential"];
        options?: never;
        head?: never;
        /** Change a provider credential */
        patch: operations["updateProviderCredential"];
        trace?: never;
    };
    "/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List agents */
        get: operations["listAgents"];
        put?: never;
        /** Create an agent */
        post: operations["createAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an agent */
        get: operations["getAgent"];
        put?: never;
        post?: never;
        /** Delete an agent */
        delete: operations["deleteAgent"];
        options?: never;
        head?: never;
        /** Change an agent */
        patch: operations["updateAgent"];
        trace?: never;
    };
    "/v1/agents/{id}/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A click-to-call agent's API token, secret and examples (409 for other types) */
        get: operations["getAgentCredentials"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/credentials/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace a click-to-call agent's API token and secret */
        post: operations["rotateAgentCredentials"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/provider-tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tools defined at the agent's provider */
        get: operations["listProviderTools"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/provider-tools/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import provider tools as organization tools */
        post: operations["importProviderTools"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/provider-credentials/{id}/voices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The voices the credential's provider account offers
         * @description Where the provider has a list endpoint, the account's voices as it answers; otherwise the voices its documentation names.
         */
        get: operations["listProviderVoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/phone-numbers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List phone numbers */
        get: operations["listPhoneNumbers"];
        put?: never;
        /** Import a number from a provider account, optionally bound to an inbound agent */
        post: operations["createPhoneNumber"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/phone-numbers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a phone number */
        get: operations["getPhoneNumber"];
        put?: never;
        post?: never;
        /** Delete a phone number (the provider stops answering it with the agent) */
        delete: operations["deletePhoneNumber"];
        options?: never;
        head?: never;
        /** Bind a number to an inbound agent, rebind it, or unbind it */
        patch: operations["updatePhoneNumber"];
        trace?: never;
    };
    "/v1/provider-credentials/{id}/phone-numbers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The phone numbers of the credential's provider account, to import from */
        get: operations["listProviderPhoneNumbers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/simulate-inbound": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Play the agent's scenario as an incoming call (the simulator) */
        post: operations["simulateInboundCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List tools */
        get: operations["listTools"];
        put?: never;
        /** Create a tool */
        post: operations["createTool"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tools/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check a tool and show its aiSchema without saving it */
        post: operations["previewTool"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tools/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a tool */
        get: operations["getTool"];
        put?: never;
        post?: never;
        /** Delete a tool (detaches it from every agent) */
        delete: operations["deleteTool"];
        options?: never;
        head?: never;
        /** Change a tool */
        patch: operations["updateTool"];
        trace?: never;
    };
    "/v1/tools/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run a tool once and show the exact request and response */
        post: operations["testTool"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/integrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List an agent's integrations */
        get: operations["listIntegrations"];
        put?: never;
        /** Add a call-outcome webhook to an agent */
        post: operations["createIntegration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/integrations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an integration */
        get: operations["getIntegration"];
        put?: never;
        post?: never;
        /** Delete an integration */
        delete: operations["deleteIntegration"];
        options?: never;
        head?: never;
        /** Change an integration */
        patch: operations["updateIntegration"];
        trace?: never;
    };
    "/v1/integrations/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a test delivery now */
        post: operations["sendIntegrationTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/integrations/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the signing secret (the old one keeps signing for 24 h) */
        post: operations["rotateIntegrationSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/calls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List calls */
        get: operations["listCalls"];
        put?: never;
        /**
         * Start a call through an outbound or click-to-call agent
         * @description Authenticated by the organization's API key or session, then checked as click to call checks, in its order: the Idempotency-Key, the agent's rate limit, the agent enabled and configured, the number and the variables, the do-not-call list, a call in progress and maxConcurrentCalls, the provider. A refusal's details carry the click-to-call code of its check.
         */
        post: operations["startCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/calls/export.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export the calls GET /v1/calls's filter keeps, as CSV
         * @description The same filters and sort as GET /v1/calls, every matching call (no pages), streamed. Columns: id, createdAt, direction, agentId, from, to, status, outcome, endedReason, durationSeconds, summary, then `collected.<name>` per field the agent declares when `agentId` names one that declares some (else one `collectedData` column of JSON), then `variables` (JSON). Cells a spreadsheet would read as a formula start with `'`.
         */
        get: operations["exportCalls"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/calls/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a call: transcript, tool invocations, deliveries */
        get: operations["getCall"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/suppressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the do-not-call list */
        get: operations["listSuppressions"];
        put?: never;
        /**
         * Add a number to the do-not-call list, or upload a CSV of numbers
         * @description JSON `{phone, reason?}`: 201 with the number listed, or 200 with it as it was when it is listed already (its reason is kept). `text/csv`: a header with a `phone` column (any case) and optionally `reason`; every valid row is listed, every invalid one reported by line and skipped; 200 with what was done. A file without a `phone` column, over 32 MiB, or a list that is full is refused whole (422).
         */
        post: operations["addSuppressions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/suppressions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a number from the do-not-call list */
        delete: operations["deleteSuppression"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Call statistics per hour or day: results, outcomes, conversion, durations, tools, deliveries */
        get: operations["getStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List campaigns, newest first */
        get: operations["listCampaigns"];
        put?: never;
        /** Create a campaign (a draft): the agent, calling window, pace and retry policy */
        post: operations["createCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a campaign with its contacts counted by state */
        get: operations["getCampaign"];
        put?: never;
        post?: never;
        /** Delete a draft, completed or cancelled campaign */
        delete: operations["deleteCampaign"];
        options?: never;
        head?: never;
        /** Change a campaign’s settings (the agent only while it is a draft) */
        patch: operations["updateCampaign"];
        trace?: never;
    };
    "/v1/campaigns/{id}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a draft campaign: its contacts are called within the window */
        post: operations["startCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns/{id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pause a running campaign: no new call starts; calls in progress finish */
        post: operations["pauseCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume a paused campaign */
        post: operations["resumeCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a campaign: contacts still waiting are skipped; calls in progress finish */
        post: operations["cancelCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns/{id}/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a campaign's contacts, in the order added, with their attempts */
        get: operations["listCampaignContacts"];
        put?: never;
        /**
         * Add contacts as JSON or a CSV upload; bad rows are reported and skipped
         * @description JSON: a list `[{phone, variables?, timezone?}]` or `{contacts: [...]}`, at most 10,000. CSV (`text/csv`, UTF-8 with or without BOM): a header row with a `phone` column (any case), optionally `timezone`; every other column is a variable named by its header. At most 32 MiB and 200,000 rows per upload. A number the campaign holds is merged (its variables updated while it is pending). `?dryRun=true` checks and previews without storing.
         */
        post: operations["addCampaignContacts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns/{id}/results.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export a campaign's contacts with their results, as CSV
         * @description Every contact (no pages), streamed. Columns: contact_id, phone, state, attempts, last_outcome, last_call_id, reason, variables (JSON). Cells a spreadsheet would read as a formula start with `'`.
         */
        get: operations["exportCampaignResults"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhook deliveries and their attempts */
        get: operations["listDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a delivery */
        get: operations["getDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Retry a delivery now */
        post: operations["retryDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/test-call": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Place a test call (answered as POST /api/click-to-call answers) */
        post: operations["placeTestCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/providers/vapi/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Vapi's server messages (authenticated by x-vapi-secret) */
        post: operations["receiveVapiWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/providers/retell/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Retell's call events (signed: x-retell-signature) */
        post: operations["receiveRetellWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/providers/retell/tools/{toolId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Retell's custom-function calls (signed: x-retell-signature) */
        post: operations["receiveRetellToolCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/click-to-call": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a call to a lead
         * @description Signed with the agent's API secret: `signature` is the lowercase hex HMAC-SHA256 of the exact body, or of `timestamp + "." + body` with a `signature-timestamp` header (at most 300 s off). The checks run in this order, and the first that fails answers: api-key, the agent, the signature, Idempotency-Key, the rate limit, the agent enabled and configured, the body and the number, a call in progress, the provider. Premium-rate, shared-cost and other costly numbers, and numbers outside the agent's `allowedCountries`, are ctc:009.
         */
        post: operations["triggerClickToCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ApiError: {
            /**
             * @example api:validation
             * @enum {string}
             */
            code: "api:unauthorized" | "api:forbidden" | "api:not_found" | "api:conflict" | "api:validation" | "api:rate_limited" | "api:internal" | "api:unavailable";
            message: string;
            /** @description For api:validation (and some conflicts), each bad field by JSON path */
            details: {
                /** @example $.name */
                path: string;
                message: string;
            }[];
            /** @example req_01JD8Y6Q4S */
            requestId: string;
        };
        Organization: {
            id: string;
            name: string;
        };
        User: {
            id: string;
            email: string;
        };
        ApiKey: {
            id: string;
            name: string;
            /** @description The first characters of the key, enough to recognise it */
            prefix: string;
            /** Format: date-time */
            createdAt: string;
        };
        CreatedApiKey: {
            id: string;
            name: string;
            /** @description The first characters of the key, enough to recognise it */
            prefix: string;
            /** Format: date-time */
            createdAt: string;
            /** @description The key itself (sb_live_…), shown once */
            key: string;
        };
        ApiKeyPage: {
            data: components["schemas"]["ApiKey"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
        };
        Signup: {
            organization: components["schemas"]["Organization"];
            user: components["schemas"]["User"];
            /** @description The first API key (sb_live_…), shown once */
            apiKey: string;
        };
        Login: {
            organization: components["schemas"]["Organization"];
            user: components["schemas"]["User"];
        };
        Me: {
            organization: components["schemas"]["Organization"] | null;
            /** @description null when authenticated by an API key */
            user: components["schemas"]["User"] | null;
        };
        ProviderCredential: {
            id: string;
            /** @enum {string} */
            provider: "vapi" | "retell";
            name: string;
            /** @description Always the mask •••••• */
            apiKey: string;
            /** @description The API key's last four characters, to recognise it */
            apiKeyLast4: string;
            /** @description The mask ••••••, or null when there is none */
            webhookSecret: string | null;
            /** @description Until when the webhook secret replaced by the last change still opens webhooks (24 hours after the change, for the calls under way); null when none does */
            previousWebhookSecretExpiresAt: string | null;
            baseUrl: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        ProviderCredentialPage: {
            data: components["schemas"]["ProviderCredential"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
        };
        AgentCollectField: {
            /** @example email */
            name: string;
            /** @enum {string} */
            type: "string" | "number" | "boolean" | "enum";
            description: string;
            /** @description Only for an enum: its values */
            choices?: string[];
            required: boolean;
        };
        AgentVoice: {
            /** @example 11labs */
            provider: string;
            /** @example burt */
            voiceId: string;
        };
        AgentModel: {
            /** @example openai */
            provider: string;
            /** @example gpt-4o-mini */
            name: string;
            /** @description Absent: the provider's default */
            temperature?: number;
        };
        AgentVoicemail: {
            /** @enum {string} */
            action: "hang_up" | "leave_message";
            /** @description Said to the voicemail (leave_message); {{variables}} filled */
            message?: string;
        };
        Agent: {
            /** @example agt_01JD8Y6Q4S */
            id: string;
            name: string;
            /** @enum {string} */
            type: "click_to_call" | "inbound" | "outbound";
            enabled: boolean;
            /** @enum {string} */
            provider: "simulator" | "vapi" | "retell";
            providerCredentialId: string | null;
            prompt: string;
            firstMessage: string;
            fromNumber: string | null;
            disableSignatureVerification: boolean;
            /** @description Click to call requires the signature-timestamp header (decision 0031) */
            requireSignatureTimestamp: boolean;
            /** @description The countries click to call may dial, ISO 3166 alpha-2; null: every country */
            allowedCountries: string[] | null;
            maxConcurrentCalls: number | null;
            rateLimitPerMinute: number | null;
            maxCallDurationSeconds: number;
            toolIds: string[];
            outcomes: string[];
            /** @description A call that ends with one of these outcomes puts its number on the organization's do-not-call list */
            doNotCallOutcomes: string[];
            simulator: {
                /** @enum {string} */
                answer?: "answered" | "no_answer" | "busy" | "voicemail" | "fail_to_start";
                /** @description How the agent's n-th call to a number is answered: answers[n - 1], the last repeating once the list is used up; wins over `answer` */
                answers?: ("answered" | "no_answer" | "busy" | "voicemail" | "fail_to_start")[];
                turns?: ({
                    /** @enum {string} */
                    role: "user" | "agent";
                    text: string;
                } | {
                    tool: string;
                    args?: {
                        [key: string]: unknown;
                    };
                })[];
                outcome?: {
                    /** @description UPPER_SNAKE_CASE */
                    status?: string;
                    /** @description What the call collected; when the agent declares `collect`, only its names, each a value of the declared type */
                    collectedData?: {
                        [key: string]: unknown;
                    };
                    /** @description The call's summary, as a provider's end-of-call report gives one */
                    summary?: string;
                };
                durationSeconds?: number;
                delayMs?: number;
            } | null;
            collect: components["schemas"]["AgentCollectField"][];
            /** @description null: the provider's default voice (decision 0036) */
            voice: components["schemas"]["AgentVoice"] | null;
            /** @description null: the default model (decision 0036) */
            model: components["schemas"]["AgentModel"] | null;
            /** @description A canonical BCP-47 tag; null: the provider's default */
            language: string | null;
            /** @description null: the provider's default (no detection) */
            voicemail: components["schemas"]["AgentVoicemail"] | null;
            /** @description Merged last into what is published */
            providerSettings: {
                [key: string]: unknown;
            } | null;
            /** @description Publishing to the provider: the provider's error when it failed, its id for the agent once published */
            providerSync: {
                /** @enum {string} */
                state: "synced" | "pending" | "failed";
                error: string | null;
                syncedAt: string | null;
                providerAgentId?: string | null;
            };
            /** @description Whether click to call can start calls through this agent */
            configured: boolean;
            /** @description The {{variables}} the prompt, first message and voicemail message use */
            variables: string[];
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        AgentPage: {
            data: components["schemas"]["Agent"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
            /** @description How many rows the filter matches, across every page */
            total: number;
        };
        AgentCredentials: {
            /** @description Sent as the api-key header */
            apiToken: string;
            /** @description Signs each request (HMAC-SHA256); never sent */
            apiSecret: string;
            /** @description Where to send click to call */
            endpoint: string;
            /** @description Plain-text instructions with the three examples */
            instructions: string;
            examples: {
                curl: string;
                node: string;
                python: string;
            };
        };
        ToolField: {
            name: string;
            /** @enum {string} */
            type: "string" | "number" | "integer" | "boolean" | "object" | "array";
            /** @enum {string} */
            fillMode: "ai" | "variable" | "fixed";
            /** @description Fixed: the constant. Variable: text with {{variable}} references. */
            value?: unknown;
            description?: string;
            allowedValues?: (string | number | boolean)[];
            required?: boolean;
            fields?: components["schemas"]["ToolField"][];
            items?: {
                /** @enum {string} */
                type: "string" | "number" | "integer" | "boolean" | "object";
                fields?: components["schemas"]["ToolField"][];
                allowedValues?: (string | number | boolean)[];
            };
        };
        Tool: {
            id: string;
            name: string;
            description: string;
            /** @enum {string} */
            method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
            url: string;
            headers: {
                key: string;
                /** @enum {string} */
                mode: "fixed" | "variable";
                /** @description The mask •••••• for a secret Fixed value */
                value: string;
                secret: boolean;
            }[];
            parameters: {
                name: string;
                /** @enum {string} */
                location: "body" | "query" | "path";
                /** @enum {string} */
                type: "string" | "number" | "integer" | "boolean" | "object" | "array";
                /** @enum {string} */
                fillMode: "ai" | "variable" | "fixed";
                /** @description Fixed: the constant. Variable: text with {{variable}} references. */
                value?: unknown;
                description?: string;
                allowedValues?: (string | number | boolean)[];
                required?: boolean;
                fields?: components["schemas"]["ToolField"][];
                items?: {
                    /** @enum {string} */
                    type: "string" | "number" | "integer" | "boolean" | "object";
                    fields?: components["schemas"]["ToolField"][];
                    allowedValues?: (string | number | boolean)[];
                };
            }[];
            variables: {
                name: string;
                defaultValue?: string;
            }[];
            timeoutMs: number;
            /** @description The JSON Schema the model fills the AI parameters with (read-only) */
            aiSchema: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        ToolPage: {
            data: components["schemas"]["Tool"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
            /** @description How many rows the filter matches, across every page */
            total: number;
        };
        ToolPreview: {
            /** @description The JSON Schema the model would fill */
            aiSchema: {
                [key: string]: unknown;
            };
        };
        RecordedRequest: {
            method: string;
            url: string;
            headers: {
                [key: string]: string;
            };
            body: string | null;
        };
        ToolTestResult: {
            /** @description null when nothing was sent */
            request: components["schemas"]["RecordedRequest"] | null;
            /** @description What the endpoint answered (its body cut to 16 KiB); null when nothing was sent or nothing came back */
            response: {
                status: number;
                body: string;
            } | null;
            /** @description What the agent would be handed: the body, or a short error */
            result: string;
            error: string | null;
            latencyMs: number;
        };
        ToolInvocation: {
            id: string;
            toolId: string | null;
            name: string;
            /** @description As the model gave them */
            arguments: unknown;
            request: components["schemas"]["RecordedRequest"] | null;
            /** @description What the endpoint answered (its body cut to 16 KiB); null when nothing was sent or nothing came back */
            response: {
                status: number;
                body: string;
            } | null;
            result: string;
            error: string | null;
            latencyMs: number;
            /** Format: date-time */
            at: string;
        };
        ProviderTool: {
            id: string;
            name: string;
            /** @description The provider's kind of tool */
            type: string;
            description: string;
            importable: boolean;
            /** @description Why it cannot be imported (empty when it can) */
            problems: string[];
            /** @description What the import leaves out or changes */
            warnings: string[];
        };
        ProviderToolList: {
            data: components["schemas"]["ProviderTool"][];
        };
        ProviderToolImport: {
            imported: {
                providerToolId: string;
                toolId: string;
                warnings: string[];
            }[];
            skipped: {
                providerToolId: string;
                reasons: string[];
            }[];
        };
        ProviderVoice: {
            /** @description Who synthesizes the voice: the agent's `voice.provider` */
            provider: string;
            /** @description The agent's `voice.voiceId`; null: the provider takes any of its voice ids, typed in */
            voiceId: string | null;
            name: string;
            gender?: string;
            accent?: string;
            age?: string;
            /** @description A sample of the voice, where the provider has one */
            previewUrl?: string;
        };
        ProviderVoiceList: {
            data: components["schemas"]["ProviderVoice"][];
        };
        PhoneNumber: {
            /** @example phn_01JD8Y6Q4S */
            id: string;
            /**
             * @description E.164
             * @example +14155550100
             */
            number: string;
            /** @enum {string} */
            provider: "vapi" | "retell";
            providerCredentialId: string;
            /** @description The number's id at the provider (Retell: the number itself) */
            providerNumberId: string;
            /** @description The inbound agent that answers the number; null: none */
            agentId: string | null;
            /** @description Binding the number to its agent at the provider, in the background like an agent's publishing */
            providerSync: {
                /** @enum {string} */
                state: "synced" | "pending" | "failed";
                /** @description Why the number does not answer with its agent yet: the provider's error, or what the agent lacks (not published yet, deleted, not inbound) */
                error: string | null;
                /** @description The provider's agent the number was last bound to by us (Vapi assistant, Retell agent); null: none */
                providerAgentId: string | null;
            };
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        PhoneNumberPage: {
            data: components["schemas"]["PhoneNumber"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
        };
        ProviderPhoneNumberList: {
            data: {
                /** @description E.164 */
                number: string;
                providerNumberId: string;
                /** @description The name the provider account gives it */
                name: string | null;
                /** @description Our phone number, when it is imported already */
                phoneNumberId: string | null;
            }[];
        };
        Integration: {
            id: string;
            agentId: string;
            /** @enum {string} */
            type: "webhook";
            url: string;
            enabled: boolean;
            /** @description The mask ••••••, or null when there is none */
            authorization: string | null;
            signing: boolean;
            /** @description whsec_…; the mask •••••• in lists */
            signingSecret: string;
            /** @description Until then the rotated-out secret signs too */
            previousSigningSecretExpiresAt: string | null;
            triggerConditions: {
                /**
                 * @default all
                 * @enum {string}
                 */
                match: "all" | "any";
                conditions: {
                    field: string;
                    /** @enum {string} */
                    operator: "equals" | "not_equals" | "in" | "not_in" | "contains" | "exists" | "not_exists" | "gt" | "gte" | "lt" | "lte";
                    value?: unknown;
                }[];
            } | null;
            disabledReason: string | null;
            failingSince: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        IntegrationPage: {
            data: components["schemas"]["Integration"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
        };
        IntegrationTestResult: {
            delivered: boolean;
            request: {
                method: string;
                url: string;
                headers: {
                    [key: string]: string;
                };
                body: string;
            };
            attempt: components["schemas"]["DeliveryAttempt"];
        };
        DeliveryAttempt: {
            /** Format: date-time */
            at: string;
            /** @description The receiver's HTTP status; null when none came back */
            status: number | null;
            latencyMs: number;
            error: string | null;
            errorCode: string | null;
            responseExcerpt: string | null;
        };
        Delivery: {
            id: string;
            integrationId: string;
            callId: string;
            webhookId: string;
            /** @enum {string} */
            state: "pending" | "delivered" | "failed";
            attempts: components["schemas"]["DeliveryAttempt"][];
            attemptCount: number;
            /** @description When pending: the next attempt */
            nextAttemptAt: string | null;
            failureReason: string | null;
            payloadTruncated: boolean;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        DeliveryPage: {
            data: components["schemas"]["Delivery"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
            /** @description How many deliveries the filter matches across every page, counted up to 10,000 */
            total: number;
            /** @description True when more than 10,000 deliveries match: `total` is then 10,000, a lower bound */
            totalCapped: boolean;
        };
        TranscriptTurn: {
            /** @enum {string} */
            role: "agent" | "user" | "tool";
            /** @description A tool turn: the tool's name */
            name?: string;
            text: string;
            /** @description ISO 8601 */
            at: string;
        };
        Call: {
            /** @example call_01JD8Y6Q4T */
            id: string;
            agentId: string;
            /** @enum {string} */
            provider: "simulator" | "vapi" | "retell";
            providerCallId: string | null;
            /**
             * @description outbound: placed by click to call or POST /v1/calls; inbound: a caller rang one of our numbers
             * @enum {string}
             */
            direction: "outbound" | "inbound";
            /** @description The agent's number, or the simulated caller id +15555550100 */
            from: string;
            to: string;
            /** @enum {string} */
            status: "queued" | "ringing" | "in_progress" | "ended";
            outcome: string | null;
            endedReason: string | null;
            error: string | null;
            /** @description The click-to-call variables, as sent */
            variables: {
                [key: string]: unknown;
            };
            /** @description What the call gathered, typed as the agent's `collect` declares it (every reported key when it declares nothing) */
            collectedData: {
                [key: string]: unknown;
            };
            /** @description The provider's summary of the call (the simulator's: its scenario's), once ended */
            summary: string | null;
            /** @description Where the provider keeps the recording (http or https), when it made one */
            recordingUrl: string | null;
            /** @description What the end-of-call report said that could not be kept as it was, e.g. `collectedData.age: expected a number, got "forty"` */
            warnings: string[];
            transcript: components["schemas"]["TranscriptTurn"][];
            toolInvocations: components["schemas"]["ToolInvocation"][];
            deliveries: components["schemas"]["Delivery"][];
            /** Format: date-time */
            createdAt: string;
            startedAt: string | null;
            answeredAt: string | null;
            endedAt: string | null;
            durationSeconds: number | null;
            /** @description The campaign that placed the call; null: not a campaign call */
            campaignId: string | null;
            /** @description The campaign's contact the call was placed for; null: not a campaign call */
            contactId: string | null;
        };
        CallPage: {
            data: components["schemas"]["Call"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
            /** @description How many calls the filter matches across every page, counted up to 10,000 */
            total: number;
            /** @description True when more than 10,000 calls match: `total` is then 10,000, a lower bound */
            totalCapped: boolean;
        };
        Suppression: {
            /** @example dnc_01JD8Y6Q4S */
            id: string;
            /**
             * @description E.164
             * @example +14155550123
             */
            phone: string;
            /** @description Why it is listed, as given; for an outcome, "outcome <STATUS>" */
            reason: string | null;
            /**
             * @description api: added by POST /v1/suppressions (or the dashboard); outcome: a call ended with one of its agent's or campaign's doNotCallOutcomes
             * @enum {string}
             */
            source: "api" | "outcome";
            /** @description source outcome: the call whose outcome listed it */
            callId: string | null;
            /** Format: date-time */
            createdAt: string;
        };
        SuppressionPage: {
            data: components["schemas"]["Suppression"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
            /** @description How many rows the filter matches, across every page */
            total: number;
        };
        SuppressionImport: {
            /** @description Data rows read (the header and blank lines not counted) */
            received: number;
            /** @description Numbers added to the list */
            added: number;
            /** @description Numbers on the list already, or twice in the file (their reason is left as it was) */
            alreadyListed: number;
            /** @description Rows not added and why, the first 1000 */
            errors: {
                /** @description The file's line number, the header being line 1 */
                line: number;
                message: string;
            }[];
            /** @description Row errors beyond the first 1000, not listed */
            errorsOmitted?: number;
        };
        Campaign: {
            /** @example cmp_01JD8Y6Q4S */
            id: string;
            name: string;
            agentId: string;
            timezone: string;
            /** @description When calls may be placed, in the contact's time zone (else the campaign's); start inclusive, end exclusive */
            window: {
                /** @description The days calls may be placed on, each once */
                days: ("mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun")[];
                /**
                 * @description Local time HH:MM (00:00–23:59) the window opens at
                 * @example 09:00
                 */
                start: string;
                /**
                 * @description Local time HH:MM it closes at, after start
                 * @example 18:00
                 */
                end: string;
            };
            concurrency: number;
            callsPerMinute: number;
            retry: {
                /** @description More attempts after a call nobody answered */
                noAnswer: number;
                /** @description More attempts after a busy line */
                busy: number;
                /** @description More attempts after reaching voicemail */
                voicemail: number;
                /** @description More attempts after a call that failed */
                failed: number;
                /** @description Minutes after a call ended before the next attempt */
                delayMinutes: number;
            };
            doNotCallOutcomes: string[];
            startAt: string | null;
            /** @enum {string} */
            state: "draft" | "running" | "paused" | "completed" | "cancelled";
            /** @description Contacts in each state */
            counts: {
                total: number;
                pending: number;
                calling: number;
                retrying: number;
                done: number;
                skipped: number;
                failed: number;
            };
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            startedAt: string | null;
            /** @description When it completed or was cancelled */
            endedAt: string | null;
        };
        CampaignPage: {
            data: components["schemas"]["Campaign"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
            /** @description How many rows the filter matches, across every page */
            total: number;
        };
        CampaignContact: {
            /** @example cct_01JD8Y6Q4S */
            id: string;
            campaignId: string;
            /** @description E.164 */
            phone: string;
            variables: {
                [key: string]: string;
            };
            /** @description IANA zone of this contact's window; null: the campaign's */
            timezone: string | null;
            /** @enum {string} */
            state: "pending" | "calling" | "retrying" | "done" | "skipped" | "failed";
            attempts: {
                number: number;
                callId: string;
                /** @enum {string} */
                state: "placing" | "placed" | "ended" | "not_started";
                outcome: string | null;
                result: ("answered" | "noAnswer" | "busy" | "voicemail" | "failed") | null;
                /** Format: date-time */
                createdAt: string;
                endedAt: string | null;
            }[];
            /** @description When it is next due (pending or retrying) */
            dueAt: string | null;
            lastOutcome: string | null;
            /** @description Why it was skipped or failed */
            reason: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        CampaignContactPage: {
            data: components["schemas"]["CampaignContact"][];
            /** @description Pass back as ?cursor=; null on the last page */
            nextCursor: string | null;
            /** @description How many rows the filter matches, across every page */
            total: number;
        };
        ContactImportResult: {
            /** @description Rows read (CSV: not counting the header) */
            received: number;
            /** @description New contacts */
            added: number;
            /** @description Numbers already in the campaign or repeated in the upload */
            merged: number;
            /** @description Rows refused, at most 1000 */
            errors: {
                /** @description CSV: the file's line, the header being line 1 */
                line?: number;
                /** @description JSON: the position in the list, from 0 */
                index?: number;
                message: string;
            }[];
            /** @description Rows refused beyond those listed */
            errorsOmitted?: number;
            /** @description dryRun: the first 10 valid contacts */
            preview?: {
                line?: number;
                index?: number;
                phone: string;
                variables: {
                    [key: string]: string;
                };
                timezone: string | null;
            }[];
        };
        StatsBucket: {
            /** @description Calls created in the interval */
            calls: number;
            /** @description Ended calls by outcome, e.g. {"SOLD": 3, "NO_ANSWER": 2} */
            byOutcome: {
                [key: string]: number;
            };
            /** @description Every call is in exactly one of these */
            results: {
                /** @description Someone answered (ended or still talking) */
                answered: number;
                noAnswer: number;
                busy: number;
                voicemail: number;
                /** @description Ended without being answered, for another reason (an error, a refusal, the duration sweep) */
                failed: number;
                /** @description Not answered and not ended yet (queued, ringing) */
                open: number;
            };
            /** @description Per outcome, its share (0 to 1) of the answered calls that have ended */
            conversion: {
                [key: string]: number;
            };
            /** @description Of answered calls that have ended; null when there are none */
            duration: {
                averageSeconds: number | null;
                /** @description Exact below 16 s, else within 6.25 % */
                p90Seconds: number | null;
            };
            /** @description The tool invocations of these calls; rates and latencies null when there are none */
            tools: {
                /** @description Tool runs during these calls */
                runs: number;
                /** @description Runs without an error */
                succeeded: number;
                failed: number;
                successRate: number | null;
                /** @description Exact below 16 ms, else within 6.25 % */
                p50LatencyMs: number | null;
                p95LatencyMs: number | null;
            };
            /** @description Webhook deliveries of these calls, by state */
            deliveries: {
                delivered: number;
                failed: number;
                pending: number;
            };
        };
        StatsInterval: {
            /**
             * Format: date-time
             * @description The interval starts here: an hour, or midnight in `timezone`
             */
            start: string;
            /** @description Calls created in the interval */
            calls: number;
            /** @description Ended calls by outcome, e.g. {"SOLD": 3, "NO_ANSWER": 2} */
            byOutcome: {
                [key: string]: number;
            };
            /** @description Every call is in exactly one of these */
            results: {
                /** @description Someone answered (ended or still talking) */
                answered: number;
                noAnswer: number;
                busy: number;
                voicemail: number;
                /** @description Ended without being answered, for another reason (an error, a refusal, the duration sweep) */
                failed: number;
                /** @description Not answered and not ended yet (queued, ringing) */
                open: number;
            };
            /** @description Per outcome, its share (0 to 1) of the answered calls that have ended */
            conversion: {
                [key: string]: number;
            };
            /** @description Of answered calls that have ended; null when there are none */
            duration: {
                averageSeconds: number | null;
                /** @description Exact below 16 s, else within 6.25 % */
                p90Seconds: number | null;
            };
            /** @description The tool invocations of these calls; rates and latencies null when there are none */
            tools: {
                /** @description Tool runs during these calls */
                runs: number;
                /** @description Runs without an error */
                succeeded: number;
                failed: number;
                successRate: number | null;
                /** @description Exact below 16 ms, else within 6.25 % */
                p50LatencyMs: number | null;
                p95LatencyMs: number | null;
            };
            /** @description Webhook deliveries of these calls, by state */
            deliveries: {
                delivered: number;
                failed: number;
                pending: number;
            };
        };
        Stats: {
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            to: string;
            /** @enum {string} */
            interval: "hour" | "day";
            timezone: string;
            agentId: string | null;
            /** @description Every interval from the one `from` is in to the one before `to`, oldest first, empty ones too */
            intervals: components["schemas"]["StatsInterval"][];
            totals: components["schemas"]["StatsBucket"];
        };
        Liveness: {
            /** @enum {string} */
            status: "ok";
        };
        Readiness: {
            /** @enum {string} */
            status: "ready";
        };
        NotReady: {
            /** @enum {string} */
            status: "not_ready";
            /**
             * @example database unreachable
             * @example migrations pending
             */
            reason: string;
        };
        WebhookRefusal: {
            error: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getLiveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Liveness"];
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready for traffic */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description Not ready: the reason says why */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotReady"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    getApiReference: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    getApiReferenceFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                    "text/css": string;
                    "image/png": string;
                };
            };
            /** @description No such file (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    signup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    organization: string;
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description The organization, the user and the API key (shown once) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Signup"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Too many requests; Retry-After says when to try again (api:rate_limited) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Signed in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Login"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Too many requests; Retry-After says when to try again (api:rate_limited) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The organization and user */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Me"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every key, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description The key */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listProviderCredentials: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of credentials, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderCredentialPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    createProviderCredential: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    provider: "vapi" | "retell";
                    name: string;
                    /** @description The provider's private API key. Write-only: read back masked; the mask written back keeps it, unless the base URL moves to another origin, where it must be given again. */
                    apiKey: string;
                    webhookSecret?: string | null;
                    /** @description The provider's API base URL; null for its public one. */
                    baseUrl?: string | null;
                };
            };
        };
        responses: {
            /** @description The credential, secrets masked */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderCredential"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getProviderCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The credential, secrets masked */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderCredential"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    deleteProviderCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    updateProviderCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @description The provider's private API key. Write-only: read back masked; the mask written back keeps it, unless the base URL moves to another origin, where it must be given again. */
                    apiKey?: string;
                    webhookSecret?: string | null;
                    /** @description null revokes the webhook secret replaced by the last change, which otherwise opens webhooks for 24 hours after it (with a new webhookSecret in the same request, the one it replaces is not kept) */
                    previousWebhookSecretExpiresAt?: null;
                    /** @description The provider's API base URL; null for its public one. */
                    baseUrl?: string | null;
                };
            };
        };
        responses: {
            /** @description The credential as changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderCredential"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listAgents: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of agents, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    createAgent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    type?: "click_to_call" | "inbound" | "outbound";
                    enabled?: boolean;
                    /** @enum {string} */
                    provider?: "simulator" | "vapi" | "retell";
                    providerCredentialId?: string | null;
                    prompt?: string;
                    firstMessage?: string;
                    fromNumber?: string | null;
                    disableSignatureVerification?: boolean;
                    /** @description Click to call refuses a request without the signature-timestamp header (ctc:001); default false (decision 0031) */
                    requireSignatureTimestamp?: boolean;
                    /** @description ISO 3166 alpha-2 codes of the countries click to call may dial (ctc:009 for another); null, the default: every country. Duplicates are dropped. */
                    allowedCountries?: string[] | null;
                    maxConcurrentCalls?: number | null;
                    rateLimitPerMinute?: number | null;
                    maxCallDurationSeconds?: number;
                    toolIds?: string[];
                    outcomes?: string[];
                    /** @description Outcomes that put the number called on the organization's do-not-call list when a call ends with one, e.g. DO_NOT_CALL; default [] */
                    doNotCallOutcomes?: string[];
                    simulator?: {
                        /** @enum {string} */
                        answer?: "answered" | "no_answer" | "busy" | "voicemail" | "fail_to_start";
                        /** @description How the agent's n-th call to a number is answered: answers[n - 1], the last repeating once the list is used up; wins over `answer` */
                        answers?: ("answered" | "no_answer" | "busy" | "voicemail" | "fail_to_start")[];
                        turns?: ({
                            /** @enum {string} */
                            role: "user" | "agent";
                            text: string;
                        } | {
                            tool: string;
                            args?: {
                                [key: string]: unknown;
                            };
                        })[];
                        outcome?: {
                            /** @description UPPER_SNAKE_CASE */
                            status?: string;
                            /** @description What the call collected; when the agent declares `collect`, only its names, each a value of the declared type */
                            collectedData?: {
                                [key: string]: unknown;
                            };
                            /** @description The call's summary, as a provider's end-of-call report gives one */
                            summary?: string;
                        };
                        durationSeconds?: number;
                        delayMs?: number;
                    } | null;
                    /** @description What the agent collects in a call: its values become the outcome's `collectedData` */
                    collect?: {
                        /** @description An identifier, unique in the agent */
                        name: string;
                        /** @enum {string} */
                        type: "string" | "number" | "boolean" | "enum";
                        /** @description What the provider should extract */
                        description?: string;
                        choices?: string[];
                        required?: boolean;
                    }[];
                    /** @description The voice; null: the provider's default */
                    voice?: {
                        /** @example 11labs */
                        provider: string;
                        /** @example burt */
                        voiceId: string;
                    } | null;
                    /** @description The language model; null: the default (decision 0036) */
                    model?: {
                        /** @example openai */
                        provider: string;
                        /** @example gpt-4o-mini */
                        name: string;
                        temperature?: number;
                    } | null;
                    /** @description A BCP-47 language tag (en-US, es-ES); null: the provider's default */
                    language?: string | null;
                    /** @description What to do on reaching voicemail; message required to leave_message. null: the provider's default */
                    voicemail?: {
                        /** @enum {string} */
                        action: "hang_up" | "leave_message";
                        message?: string;
                    } | null;
                    /** @description Merged last into what is published to the provider; checked against the provider's published schema. At most 16 KiB as JSON, 8 levels deep */
                    providerSettings?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description The agent */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    deleteAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    updateAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @enum {string} */
                    type?: "click_to_call" | "inbound" | "outbound";
                    enabled?: boolean;
                    /** @enum {string} */
                    provider?: "simulator" | "vapi" | "retell";
                    providerCredentialId?: string | null;
                    prompt?: string;
                    firstMessage?: string;
                    fromNumber?: string | null;
                    disableSignatureVerification?: boolean;
                    /** @description Click to call refuses a request without the signature-timestamp header (ctc:001); default false (decision 0031) */
                    requireSignatureTimestamp?: boolean;
                    /** @description ISO 3166 alpha-2 codes of the countries click to call may dial (ctc:009 for another); null, the default: every country. Duplicates are dropped. */
                    allowedCountries?: string[] | null;
                    maxConcurrentCalls?: number | null;
                    rateLimitPerMinute?: number | null;
                    maxCallDurationSeconds?: number;
                    toolIds?: string[];
                    outcomes?: string[];
                    /** @description Outcomes that put the number called on the organization's do-not-call list when a call ends with one, e.g. DO_NOT_CALL; default [] */
                    doNotCallOutcomes?: string[];
                    simulator?: {
                        /** @enum {string} */
                        answer?: "answered" | "no_answer" | "busy" | "voicemail" | "fail_to_start";
                        /** @description How the agent's n-th call to a number is answered: answers[n - 1], the last repeating once the list is used up; wins over `answer` */
                        answers?: ("answered" | "no_answer" | "busy" | "voicemail" | "fail_to_start")[];
                        turns?: ({
                            /** @enum {string} */
                            role: "user" | "agent";
                            text: string;
                        } | {
                            tool: string;
                            args?: {
                                [key: string]: unknown;
                            };
                        })[];
                        outcome?: {
                            /** @description UPPER_SNAKE_CASE */
                            status?: string;
                            /** @description What the call collected; when the agent declares `collect`, only its names, each a value of the declared type */
                            collectedData?: {
                                [key: string]: unknown;
                            };
                            /** @description The call's summary, as a provider's end-of-call report gives one */
                            summary?: string;
                        };
                        durationSeconds?: number;
                        delayMs?: number;
                    } | null;
                    /** @description What the agent collects in a call: its values become the outcome's `collectedData` */
                    collect?: {
                        /** @description An identifier, unique in the agent */
                        name: string;
                        /** @enum {string} */
                        type: "string" | "number" | "boolean" | "enum";
                        /** @description What the provider should extract */
                        description?: string;
                        choices?: string[];
                        required?: boolean;
                    }[];
                    /** @description The voice; null: the provider's default */
                    voice?: {
                        /** @example 11labs */
                        provider: string;
                        /** @example burt */
                        voiceId: string;
                    } | null;
                    /** @description The language model; null: the default (decision 0036) */
                    model?: {
                        /** @example openai */
                        provider: string;
                        /** @example gpt-4o-mini */
                        name: string;
                        temperature?: number;
                    } | null;
                    /** @description A BCP-47 language tag (en-US, es-ES); null: the provider's default */
                    language?: string | null;
                    /** @description What to do on reaching voicemail; message required to leave_message. null: the provider's default */
                    voicemail?: {
                        /** @enum {string} */
                        action: "hang_up" | "leave_message";
                        message?: string;
                    } | null;
                    /** @description Merged last into what is published to the provider; checked against the provider's published schema. At most 16 KiB as JSON, 8 levels deep */
                    providerSettings?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description The agent as changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getAgentCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The credentials, instructions and examples */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentCredentials"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    rotateAgentCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new credentials; the old pair stops working at once */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentCredentials"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listProviderTools: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every tool the provider has for the agent */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderToolList"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    importProviderTools: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    providerToolIds: string[];
                };
            };
        };
        responses: {
            /** @description What was imported, and what was skipped and why */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderToolImport"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listProviderVoices: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every voice, as an agent names it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderVoiceList"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listPhoneNumbers: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                /** @description Only this agent's numbers */
                agentId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of phone numbers, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PhoneNumberPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    createPhoneNumber: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description E.164
                     * @example +14155550100
                     */
                    number: string;
                    /**
                     * @description The credential's provider; when given, it must be that one
                     * @enum {string}
                     */
                    provider?: "vapi" | "retell";
                    providerCredentialId: string;
                    /** @description As GET /v1/provider-credentials/:id/phone-numbers lists it (Retell: the number itself) */
                    providerNumberId: string;
                    /** @description An inbound agent on the same credential; default null */
                    agentId?: string | null;
                };
            };
        };
        responses: {
            /** @description The number; a binding is published in the background */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PhoneNumber"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getPhoneNumber: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The number */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PhoneNumber"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    deletePhoneNumber: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    updatePhoneNumber: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Binds the number to this inbound agent (rebinding it), or unbinds it (null) */
                    agentId?: string | null;
                };
            };
        };
        responses: {
            /** @description The number as changed; the binding is published in the background */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PhoneNumber"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listProviderPhoneNumbers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every number of the account, with ours where imported */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderPhoneNumberList"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    simulateInboundCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The caller's number, E.164 */
                    from: string;
                    /** @description Filled into the prompt and messages as click-to-call variables are */
                    variables?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description The incoming call, as it starts; it goes on in the background */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Call"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listTools: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tools, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    createTool: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
                    url: string;
                    description?: string;
                    headers?: {
                        key: string;
                        /** @enum {string} */
                        mode: "fixed" | "variable";
                        value: string;
                        /** @description Stored encrypted and read back masked (Fixed values). Default: true for Authorization, Cookie and names containing key, token, secret, password, auth or signature. The mask written back keeps the stored value of a header of the same key that stays secret and Fixed; when the URL moves to another origin, every secret value must be given again. */
                        secret?: boolean;
                    }[];
                    parameters?: {
                        name: string;
                        /** @enum {string} */
                        location: "body" | "query" | "path";
                        /** @enum {string} */
                        type: "string" | "number" | "integer" | "boolean" | "object" | "array";
                        /** @enum {string} */
                        fillMode: "ai" | "variable" | "fixed";
                        /** @description Fixed: the constant. Variable: text with {{variable}} references. */
                        value?: unknown;
                        description?: string;
                        allowedValues?: (string | number | boolean)[];
                        required?: boolean;
                        fields?: components["schemas"]["ToolField"][];
                        items?: {
                            /** @enum {string} */
                            type: "string" | "number" | "integer" | "boolean" | "object";
                            fields?: components["schemas"]["ToolField"][];
                            allowedValues?: (string | number | boolean)[];
                        };
                    }[];
                    variables?: {
                        name: string;
                        defaultValue?: string;
                    }[];
                    /** @default 10000 */
                    timeoutMs?: number;
                };
            };
        };
        responses: {
            /** @description The tool, with its read-only aiSchema */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tool"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    previewTool: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
                    url: string;
                    description?: string;
                    headers?: {
                        key: string;
                        /** @enum {string} */
                        mode: "fixed" | "variable";
                        value: string;
                        /** @description Stored encrypted and read back masked (Fixed values). Default: true for Authorization, Cookie and names containing key, token, secret, password, auth or signature. The mask written back keeps the stored value of a header of the same key that stays secret and Fixed; when the URL moves to another origin, every secret value must be given again. */
                        secret?: boolean;
                    }[];
                    parameters?: {
                        name: string;
                        /** @enum {string} */
                        location: "body" | "query" | "path";
                        /** @enum {string} */
                        type: "string" | "number" | "integer" | "boolean" | "object" | "array";
                        /** @enum {string} */
                        fillMode: "ai" | "variable" | "fixed";
                        /** @description Fixed: the constant. Variable: text with {{variable}} references. */
                        value?: unknown;
                        description?: string;
                        allowedValues?: (string | number | boolean)[];
                        required?: boolean;
                        fields?: components["schemas"]["ToolField"][];
                        items?: {
                            /** @enum {string} */
                            type: "string" | "number" | "integer" | "boolean" | "object";
                            fields?: components["schemas"]["ToolField"][];
                            allowedValues?: (string | number | boolean)[];
                        };
                    }[];
                    variables?: {
                        name: string;
                        defaultValue?: string;
                    }[];
                    /** @default 10000 */
                    timeoutMs?: number;
                };
            };
        };
        responses: {
            /** @description The aiSchema the tool would have */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolPreview"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getTool: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tool */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tool"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    deleteTool: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    updateTool: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    description?: string;
                    /** @enum {string} */
                    method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
                    url?: string;
                    headers?: {
                        key: string;
                        /** @enum {string} */
                        mode: "fixed" | "variable";
                        value: string;
                        /** @description Stored encrypted and read back masked (Fixed values). Default: true for Authorization, Cookie and names containing key, token, secret, password, auth or signature. The mask written back keeps the stored value of a header of the same key that stays secret and Fixed; when the URL moves to another origin, every secret value must be given again. */
                        secret?: boolean;
                    }[];
                    parameters?: {
                        name: string;
                        /** @enum {string} */
                        location: "body" | "query" | "path";
                        /** @enum {string} */
                        type: "string" | "number" | "integer" | "boolean" | "object" | "array";
                        /** @enum {string} */
                        fillMode: "ai" | "variable" | "fixed";
                        /** @description Fixed: the constant. Variable: text with {{variable}} references. */
                        value?: unknown;
                        description?: string;
                        allowedValues?: (string | number | boolean)[];
                        required?: boolean;
                        fields?: components["schemas"]["ToolField"][];
                        items?: {
                            /** @enum {string} */
                            type: "string" | "number" | "integer" | "boolean" | "object";
                            fields?: components["schemas"]["ToolField"][];
                            allowedValues?: (string | number | boolean)[];
                        };
                    }[];
                    variables?: {
                        name: string;
                        defaultValue?: string;
                    }[];
                    /** @default 10000 */
                    timeoutMs?: number;
                };
            };
        };
        responses: {
            /** @description The tool as changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tool"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    testTool: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The AI-filled arguments */
                    args?: {
                        [key: string]: unknown;
                    };
                    /** @description Stand-ins for a call's click-to-call variables */
                    variables?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description What was sent and what came back */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolTestResult"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listIntegrations: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of integrations, newest first; secrets masked */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IntegrationPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    createIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    /**
                     * @default webhook
                     * @enum {string}
                     */
                    type?: "webhook";
                    enabled?: boolean;
                    /** @description Sent as "Authorization: Bearer <token>". Write-only: read back masked; the mask written back keeps it, unless the URL moves to another origin, where it must be given again. */
                    authorization?: string | null;
                    /** @default true */
                    signing?: boolean;
                    triggerConditions?: {
                        /**
                         * @default all
                         * @enum {string}
                         */
                        match?: "all" | "any";
                        conditions: {
                            field: string;
                            /** @enum {string} */
                            operator: "equals" | "not_equals" | "in" | "not_in" | "contains" | "exists" | "not_exists" | "gt" | "gte" | "lt" | "lte";
                            value?: unknown;
                        }[];
                    } | null;
                };
            };
        };
        responses: {
            /** @description The integration, with its signing secret */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The integration, with its signing secret */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    deleteIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    updateIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @default webhook
                     * @enum {string}
                     */
                    type?: "webhook";
                    url?: string;
                    enabled?: boolean;
                    /** @description Sent as "Authorization: Bearer <token>". Write-only: read back masked; the mask written back keeps it, unless the URL moves to another origin, where it must be given again. */
                    authorization?: string | null;
                    /** @default true */
                    signing?: boolean;
                    triggerConditions?: {
                        /**
                         * @default all
                         * @enum {string}
                         */
                        match?: "all" | "any";
                        conditions: {
                            field: string;
                            /** @enum {string} */
                            operator: "equals" | "not_equals" | "in" | "not_in" | "contains" | "exists" | "not_exists" | "gt" | "gte" | "lt" | "lte";
                            value?: unknown;
                        }[];
                    } | null;
                };
            };
        };
        responses: {
            /** @description The integration as changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    sendIntegrationTest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request sent and what came back */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IntegrationTestResult"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    rotateIntegrationSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The integration with its new signing secret */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Integration"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listCalls: {
        parameters: {
            query?: {
                agentId?: string;
                status?: "queued" | "ringing" | "in_progress" | "ended";
                /** @description The outcome status, e.g. SOLD (UPPER_SNAKE_CASE) */
                outcome?: string;
                direction?: "outbound" | "inbound";
                /** @description Calls created at or after this time (ISO 8601 with its offset) */
                since?: string;
                /** @description Calls created before this time (ISO 8601 with its offset) */
                until?: string;
                /**
                 * @description The start of the number called or calling (`to` or `from`), e.g. +1555; `+` is assumed
                 * @example +1415
                 */
                phone?: string;
                /** @description Only this campaign's calls (an unknown id: none) */
                campaignId?: string;
                /** @description By creation time or duration, `-` for descending; calls with no duration yet come last */
                sort?: "-createdAt" | "createdAt" | "-durationSeconds" | "durationSeconds";
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of calls (newest first by default), and how many match */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CallPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    startCall: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes a retried request (same key, same agent, same phone and variables) answer the call the first one placed for 24 h instead of placing a second: 1 to 255 characters (ctc:011 otherwise)
                 * @example order-1042
                 */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description At most 65536 bytes */
        requestBody: {
            content: {
                "application/json": {
                    /** @description An agent of type outbound or click_to_call */
                    agentId: string;
                    /**
                     * @description The number to call, E.164
                     * @example +14155550123
                     */
                    phone: string;
                    /** @description Fill the agent's {{name}} placeholders, as click to call's do: names 1–64 characters, not starting with "switchboard" or "system"; values at most 4096 characters */
                    variables?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description The call, as GET /v1/calls/{id} shows it (a replay: as it is now) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Call"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The number is on the organization's do-not-call list (ctc:013), or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code: "api:unauthorized" | "api:forbidden" | "api:not_found" | "api:conflict" | "api:validation" | "api:rate_limited" | "api:internal" | "api:unavailable";
                        message: string;
                        details: {
                            /** @example $.phone */
                            path: string;
                            message: string;
                            /**
                             * @description The click-to-call code of the check that refused (docs/interface.md#post-v1calls)
                             * @enum {string}
                             */
                            code?: "ctc:001" | "ctc:002" | "ctc:003" | "ctc:004" | "ctc:005" | "ctc:006" | "ctc:007" | "ctc:008" | "ctc:009" | "ctc:010" | "ctc:011" | "ctc:012" | "ctc:013";
                            /** @description ctc:008: the call, recorded as failed to start */
                            callId?: string;
                        }[];
                        requestId: string;
                    };
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description An inbound agent; the agent disabled (ctc:004) or not configured (ctc:005); a call in progress or maxConcurrentCalls (ctc:007); the first request with this Idempotency-Key still in progress (ctc:012) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code: "api:unauthorized" | "api:forbidden" | "api:not_found" | "api:conflict" | "api:validation" | "api:rate_limited" | "api:internal" | "api:unavailable";
                        message: string;
                        details: {
                            /** @example $.phone */
                            path: string;
                            message: string;
                            /**
                             * @description The click-to-call code of the check that refused (docs/interface.md#post-v1calls)
                             * @enum {string}
                             */
                            code?: "ctc:001" | "ctc:002" | "ctc:003" | "ctc:004" | "ctc:005" | "ctc:006" | "ctc:007" | "ctc:008" | "ctc:009" | "ctc:010" | "ctc:011" | "ctc:012" | "ctc:013";
                            /** @description ctc:008: the call, recorded as failed to start */
                            callId?: string;
                        }[];
                        requestId: string;
                    };
                };
            };
            /** @description The body is not valid: its shape, the number or the variables (ctc:009); an Idempotency-Key empty, too long or used with another request (ctc:011) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code: "api:unauthorized" | "api:forbidden" | "api:not_found" | "api:conflict" | "api:validation" | "api:rate_limited" | "api:internal" | "api:unavailable";
                        message: string;
                        details: {
                            /** @example $.phone */
                            path: string;
                            message: string;
                            /**
                             * @description The click-to-call code of the check that refused (docs/interface.md#post-v1calls)
                             * @enum {string}
                             */
                            code?: "ctc:001" | "ctc:002" | "ctc:003" | "ctc:004" | "ctc:005" | "ctc:006" | "ctc:007" | "ctc:008" | "ctc:009" | "ctc:010" | "ctc:011" | "ctc:012" | "ctc:013";
                            /** @description ctc:008: the call, recorded as failed to start */
                            callId?: string;
                        }[];
                        requestId: string;
                    };
                };
            };
            /** @description Over the agent's rateLimitPerMinute (ctc:010) */
            429: {
                headers: {
                    /** @description Seconds until the agent takes calls again */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code: "api:unauthorized" | "api:forbidden" | "api:not_found" | "api:conflict" | "api:validation" | "api:rate_limited" | "api:internal" | "api:unavailable";
                        message: string;
                        details: {
                            /** @example $.phone */
                            path: string;
                            message: string;
                            /**
                             * @description The click-to-call code of the check that refused (docs/interface.md#post-v1calls)
                             * @enum {string}
                             */
                            code?: "ctc:001" | "ctc:002" | "ctc:003" | "ctc:004" | "ctc:005" | "ctc:006" | "ctc:007" | "ctc:008" | "ctc:009" | "ctc:010" | "ctc:011" | "ctc:012" | "ctc:013";
                            /** @description ctc:008: the call, recorded as failed to start */
                            callId?: string;
                        }[];
                        requestId: string;
                    };
                };
            };
            /** @description The provider refused or failed to start the call (ctc:008, with its callId), or the server failed */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        code: "api:unauthorized" | "api:forbidden" | "api:not_found" | "api:conflict" | "api:validation" | "api:rate_limited" | "api:internal" | "api:unavailable";
                        message: string;
                        details: {
                            /** @example $.phone */
                            path: string;
                            message: string;
                            /**
                             * @description The click-to-call code of the check that refused (docs/interface.md#post-v1calls)
                             * @enum {string}
                             */
                            code?: "ctc:001" | "ctc:002" | "ctc:003" | "ctc:004" | "ctc:005" | "ctc:006" | "ctc:007" | "ctc:008" | "ctc:009" | "ctc:010" | "ctc:011" | "ctc:012" | "ctc:013";
                            /** @description ctc:008: the call, recorded as failed to start */
                            callId?: string;
                        }[];
                        requestId: string;
                    };
                };
            };
        };
    };
    exportCalls: {
        parameters: {
            query?: {
                agentId?: string;
                status?: "queued" | "ringing" | "in_progress" | "ended";
                /** @description The outcome status, e.g. SOLD (UPPER_SNAKE_CASE) */
                outcome?: string;
                direction?: "outbound" | "inbound";
                /** @description Calls created at or after this time (ISO 8601 with its offset) */
                since?: string;
                /** @description Calls created before this time (ISO 8601 with its offset) */
                until?: string;
                /**
                 * @description The start of the number called or calling (`to` or `from`), e.g. +1555; `+` is assumed
                 * @example +1415
                 */
                phone?: string;
                /** @description Only this campaign's calls (an unknown id: none) */
                campaignId?: string;
                /** @description By creation time or duration, `-` for descending; calls with no duration yet come last */
                sort?: "-createdAt" | "createdAt" | "-durationSeconds" | "durationSeconds";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The calls as CSV (RFC 4180, UTF-8, CRLF line ends), sent as an attachment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The call */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Call"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listSuppressions: {
        parameters: {
            query?: {
                /**
                 * @description The start of the number, e.g. +1415; `+` is assumed
                 * @example +1415
                 */
                phone?: string;
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of listed numbers, newest first, and how many match */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SuppressionPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    addSuppressions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description E.164, e.g. +14155550123
                     * @example +14155550123
                     */
                    phone: string;
                    /** @description Why, at most 500 characters */
                    reason?: string | null;
                };
                /**
                 * @example phone,reason
                 *     +14155550123,asked not to be called
                 *     "+14155550124","moved, no longer a lead"
                 */
                "text/csv": unknown;
            };
        };
        responses: {
            /** @description JSON: the number, listed already (left as it was). CSV: rows read, numbers added, numbers listed already, and the rows refused by line */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"] | components["schemas"]["SuppressionImport"];
                };
            };
            /** @description The number, listed now */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    deleteSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getStats: {
        parameters: {
            query?: {
                /** @description Calls created at or after (default: 7 days before `to`) */
                from?: string;
                /** @description Calls created before (default: now) */
                to?: string;
                agentId?: string;
                interval?: "hour" | "day";
                /** @description An IANA time zone name, e.g. Europe/Paris (default UTC): intervals begin on its hours and midnights */
                timezone?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every interval of the period, and the totals */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Stats"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not answerable yet; the message says why and Retry-After when to ask again (api:unavailable) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listCampaigns: {
        parameters: {
            query?: {
                /** @description Only campaigns in this state */
                state?: "draft" | "running" | "paused" | "completed" | "cancelled";
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of campaigns with their contact counts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CampaignPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    createCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @description An outbound or click-to-call agent of the organization */
                    agentId: string;
                    /**
                     * @description IANA time zone of the window for contacts without their own; default UTC
                     * @example America/New_York
                     */
                    timezone?: string;
                    /** @description When calls may be placed, in the contact's time zone (else the campaign's); start inclusive, end exclusive */
                    window?: {
                        /** @description The days calls may be placed on, each once */
                        days: ("mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun")[];
                        /**
                         * @description Local time HH:MM (00:00–23:59) the window opens at
                         * @example 09:00
                         */
                        start: string;
                        /**
                         * @description Local time HH:MM it closes at, after start
                         * @example 18:00
                         */
                        end: string;
                    };
                    /** @description Calls in progress at once at most; default 1 */
                    concurrency?: number;
                    /** @description Calls started per minute at most; default 10 */
                    callsPerMinute?: number;
                    retry?: {
                        /** @description More attempts after a call nobody answered */
                        noAnswer: number;
                        /** @description More attempts after a busy line */
                        busy: number;
                        /** @description More attempts after reaching voicemail */
                        voicemail: number;
                        /** @description More attempts after a call that failed */
                        failed: number;
                        /** @description Minutes after a call ended before the next attempt */
                        delayMinutes: number;
                    };
                    /** @description Outcomes that put the called number on the organization's do-not-call list */
                    doNotCallOutcomes?: string[];
                    /** @description No call before this instant; null: as soon as started */
                    startAt?: string | null;
                };
            };
        };
        responses: {
            /** @description The campaign, a draft */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The campaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    deleteCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    updateCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @description An outbound or click-to-call agent of the organization */
                    agentId?: string;
                    /**
                     * @description IANA time zone of the window for contacts without their own; default UTC
                     * @example America/New_York
                     */
                    timezone?: string;
                    /** @description When calls may be placed, in the contact's time zone (else the campaign's); start inclusive, end exclusive */
                    window?: {
                        /** @description The days calls may be placed on, each once */
                        days: ("mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun")[];
                        /**
                         * @description Local time HH:MM (00:00–23:59) the window opens at
                         * @example 09:00
                         */
                        start: string;
                        /**
                         * @description Local time HH:MM it closes at, after start
                         * @example 18:00
                         */
                        end: string;
                    };
                    /** @description Calls in progress at once at most; default 1 */
                    concurrency?: number;
                    /** @description Calls started per minute at most; default 10 */
                    callsPerMinute?: number;
                    retry?: {
                        /** @description More attempts after a call nobody answered */
                        noAnswer: number;
                        /** @description More attempts after a busy line */
                        busy: number;
                        /** @description More attempts after reaching voicemail */
                        voicemail: number;
                        /** @description More attempts after a call that failed */
                        failed: number;
                        /** @description Minutes after a call ended before the next attempt */
                        delayMinutes: number;
                    };
                    /** @description Outcomes that put the called number on the organization's do-not-call list */
                    doNotCallOutcomes?: string[];
                    /** @description No call before this instant; null: as soon as started */
                    startAt?: string | null;
                };
            };
        };
        responses: {
            /** @description The campaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    startCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The campaign in its new state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    pauseCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The campaign in its new state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    resumeCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The campaign in its new state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    cancelCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The campaign in its new state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listCampaignContacts: {
        parameters: {
            query?: {
                /** @description Only contacts in this state */
                state?: "pending" | "calling" | "retrying" | "done" | "skipped" | "failed";
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of contacts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CampaignContactPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    addCampaignContacts: {
        parameters: {
            query?: {
                /** @description Check and preview without storing anything */
                dryRun?: boolean;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description E.164; required */
                    phone?: unknown;
                    /** @description Names and string values, as click to call takes them */
                    variables?: unknown;
                    /** @description IANA time zone of this contact's window */
                    timezone?: unknown;
                }[] | {
                    contacts: {
                        /** @description E.164; required */
                        phone?: unknown;
                        /** @description Names and string values, as click to call takes them */
                        variables?: unknown;
                        /** @description IANA time zone of this contact's window */
                        timezone?: unknown;
                    }[];
                };
                "text/csv": unknown;
            };
        };
        responses: {
            /** @description What was read, added and merged, and each row refused */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContactImportResult"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    exportCampaignResults: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The results as CSV (RFC 4180, UTF-8, CRLF line ends), sent as an attachment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    listDeliveries: {
        parameters: {
            query?: {
                integrationId?: string;
                callId?: string;
                state?: "pending" | "delivered" | "failed";
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryPage"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    getDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery and its attempts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    retryDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery, due now */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Not allowed: sign-up closed, or a write from another site (api:forbidden) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    placeTestCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description E.164, e.g. +14155550123 */
                    phone: string;
                    variables?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description The call is queued; its outcome arrives by webhook and at GET /v1/calls/{id} */
            200: {
                headers: {
                    /** @description Set on a replayed answer */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        callId: string;
                        /** @enum {string} */
                        status: "queued";
                        requestId: string;
                    };
                };
            };
            /** @description A header, the agent or the body is refused: ctc:001 Missing headers; ctc:004 Agent is disabled; ctc:005 Agent not configured; ctc:007 Call already in progress; ctc:009 Invalid request body; ctc:011 Invalid Idempotency-Key */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @enum {string} */
                        code: "ctc:001" | "ctc:004" | "ctc:005" | "ctc:007" | "ctc:009" | "ctc:011";
                        /** @enum {string} */
                        message: "Missing headers" | "Agent is disabled" | "Agent not configured" | "Call already in progress" | "Invalid request body" | "Invalid Idempotency-Key";
                        requestId: string;
                        /** @description ctc:009 and ctc:011, and ctc:001 / ctc:006 for signature-timestamp: what is wrong, by field or header */
                        details?: {
                            path: string;
                            message: string;
                        }[];
                        /** @description ctc:008: the call recorded as failed */
                        callId?: string;
                    };
                };
            };
            /** @description No valid API key or session (api:unauthorized) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description ctc:013 as click to call answers it (the number is on the do-not-call list), or api:forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @enum {string} */
                        code: "ctc:003" | "ctc:006" | "ctc:013";
                        /** @enum {string} */
                        message: "Invalid API key" | "Invalid signature" | "Number is on the do-not-call list";
                        requestId: string;
                        /** @description ctc:009 and ctc:011, and ctc:001 / ctc:006 for signature-timestamp: what is wrong, by field or header */
                        details?: {
                            path: string;
                            message: string;
                        }[];
                        /** @description ctc:008: the call recorded as failed */
                        callId?: string;
                    } | components["schemas"]["ApiError"];
                };
            };
            /** @description No such resource in this organization (api:not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Conflicts with the current state (api:conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description Over the agent's rate limit: ctc:010 Too many requests */
            429: {
                headers: {
                    /** @description Seconds until a request is accepted again */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @enum {string} */
                        code: "ctc:010";
                        /** @enum {string} */
                        message: "Too many requests";
                        requestId: string;
                        /** @description ctc:009 and ctc:011, and ctc:001 / ctc:006 for signature-timestamp: what is wrong, by field or header */
                        details?: {
                            path: string;
                            message: string;
                        }[];
                        /** @description ctc:008: the call recorded as failed */
                        callId?: string;
                    };
                };
            };
            /** @description ctc:002 or ctc:008 as click to call answers them, or api:internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @enum {string} */
                        code: "ctc:002" | "ctc:008";
                        /** @enum {string} */
                        message: "Error fetching agent" | "Error initiating call";
                        requestId: string;
                        /** @description ctc:009 and ctc:011, and ctc:001 / ctc:006 for signature-timestamp: what is wrong, by field or header */
                        details?: {
                            path: string;
                            message: string;
                        }[];
                        /** @description ctc:008: the call recorded as failed */
                        callId?: string;
                    } | components["schemas"]["ApiError"];
                };
            };
        };
    };
    receiveVapiWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The provider's own payload, as its documentation defines it */
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Taken: for a tool call, the result for the agent; otherwise {} */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is not what the provider sends */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description Not authenticated as the provider */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description No call of ours has this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description The body is larger than 4194304 bytes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    receiveRetellWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The provider's own payload, as its documentation defines it */
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Taken: for a tool call, the result for the agent; otherwise {} */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is not what the provider sends */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description Not authenticated as the provider */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description No call of ours has this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description The body is larger than 4194304 bytes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    receiveRetellToolCall: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                toolId: string;
            };
            cookie?: never;
        };
        /** @description The provider's own payload, as its documentation defines it */
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Taken: for a tool call, the result for the agent; otherwise {} */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The body is not what the provider sends */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description Not authenticated as the provider */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description No call of ours has this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description The body is larger than 4194304 bytes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRefusal"];
                };
            };
            /** @description The request is not valid: details name each field (api:validation) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
            /** @description The server failed; the log has it under requestId (api:internal) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiError"];
                };
            };
        };
    };
    triggerClickToCall: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Unix time in seconds. When sent, `signature` covers `timestamp + "." + body`, and a timestamp more than 300 s from the server's clock is ctc:006; required when the agent sets `requireSignatureTimestamp` (ctc:001 without it). Within the 300 s the same request is accepted again: send an `Idempotency-Key` so a repeat places no second call (decision 0031).
                 * @example 1767225600
                 */
                "signature-timestamp"?: string;
                /**
                 * @description Makes a retried request answer the first response for 24 h instead of starting a second call (decision 0003).
                 * @example order-1042
                 */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The exact bytes are signed (header `signature`); at most 65536 bytes. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The number to call, E.164
                     * @example +14155550123
                     */
                    phone: string;
                    /** @description Flat object of strings filling `{{name}}` placeholders; names may not start with "switchboard" or "system" (any case). Send optional variables as "". */
                    variables?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description The call is queued; its outcome arrives by webhook and at GET /v1/calls/{id} */
            200: {
                headers: {
                    /** @description Set on a replayed answer */
                    "idempotent-replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        callId: string;
                        /** @enum {string} */
                        status: "queued";
                        requestId: string;
                    };
                };
            };
            /** @description A header, the agent or the body is refused: ctc:001 Missing headers; ctc:004 Agent is disabled; ctc:005 Agent not configured; ctc:007 Call already in progress; ctc:009 Invalid request body; ctc:011 Invalid Idempotency-Key */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @enum {string} */
                        code: "ctc:001" | "ctc:004" | "ctc:005" | "ctc:007" | "ctc:009" | "ctc:011";
                        /** @enum {string} */
                        message: "Missing headers" | "Agent is disabled" | "Agent not configured" | "Call already in progress" | "Invalid request body" | "Invalid Idempotency-Key";
                        requestId: string;
                        /** @description ctc:009 and ctc:011, and ctc:001 / ctc:006 for signature-timestamp: what is wrong, by field or header */
                        details?: {
                            path: string;
                            message: string;
                        }[];
                        /** @description ctc:008: the call recorded as failed */
                        callId?: string;
                    };
                };
            };
            /** @description Authentication failed, or the number is on the do-not-call list: ctc:003 Invalid API key; ctc:006 Invalid signature; ctc:013 Number is on the do-not-call list */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @enum {string} */
                        code: "ctc:003" | "ctc:006" | "ctc:013";
                        /** @enum {string} */
                        message: "Invalid API key" | "Invalid signature" | "Number is on the do-not-call list";
                        requestId: string;
                        /** @description ctc:009 and ctc:011, and ctc:001 / ctc:006 for signature-timestamp: what is wrong, by field or header */
                        details?: {
                            path: string;
                            message: string;
                        }[];
                        /** @description ctc:008: the call recorded as failed */
                        callId?: string;
                    };
                };
            };
            /** @description Idempotency-Key in use: ctc:012 A request with this Idempotency-Key is in progress */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @enum {string} */
                        code: "ctc:012";
                        /** @enum {string} */
                        message: "A request with this Idempotency-Key is in progress";
                        requestId: string;
                        /** @description ctc:009 and ctc:011, and ctc:001 / ctc:006 for signature-timestamp: what is wrong, by field or header */
                        details?: {
                            path: string;
                            message: string;
                        }[];
                        /** @description ctc:008: the call recorded as failed */
                        callId?: string;
                    };
                };
            };
            /** @description Over the agent's rate limit: ctc:010 Too many requests */
            429: {
                headers: {
                    /** @description Seconds until a request is accepted again */
                    "retry-after"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @enum {string} */
                        code: "ctc:010";
                        /** @enum {string} */
                        message: "Too many requests";
                        requestId: string;
                        /** @description ctc:009 and ctc:011, and ctc:001 / ctc:006 for signature-timestamp: what is wrong, by field or header */
                        details?: {
                            path: string;
                            message: string;
                        }[];
                        /** @description ctc:008: the call recorded as failed */
                        callId?: string;
                    };
                };
            };
            /** @description The server or the provider failed: ctc:002 Error fetching agent; ctc:008 Error initiating call */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: false;
                        /** @enum {string} */
                        code: "ctc:002" | "ctc:008";
                        /** @enum {string} */
                        message: "Error fetching agent" | "Error initiating call";
                        requestId: string;
                        /** @description ctc:009 and ctc:011, and ctc:001 / ctc:006 for signature-timestamp: what is wrong, by field or header */
                        details?: {
                            path: string;
                            message: string;
                        }[];
                        /** @description ctc:008: the call recorded as failed */
                        callId?: string;
                    };
                };
            };
        };
    };
}
