-- Decision 0096: a Vapi credential's webhook secret, once changed, keeps opening webhooks for 24 hours (calls under
-- way, and calls placed before the agents are published again, may send it). Revocable at once.
ALTER TABLE "provider_credentials" ADD COLUMN "previous_webhook_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "provider_credentials" ADD COLUMN "webhook_secret_changed_at" timestamp with time zone;