ALTER TABLE "agents" ADD COLUMN "provider_llm_id" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "provisional_end" jsonb;