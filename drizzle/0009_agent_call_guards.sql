ALTER TABLE "agents" ADD COLUMN "allowed_countries" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "require_signature_timestamp" boolean DEFAULT false NOT NULL;