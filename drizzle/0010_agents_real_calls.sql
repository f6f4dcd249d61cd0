CREATE TABLE "phone_numbers" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"number" text NOT NULL,
	"provider" text NOT NULL,
	"provider_credential_id" text NOT NULL,
	"provider_number_id" text NOT NULL,
	"agent_id" text,
	"published_agent_id" text,
	"sync_state" text DEFAULT 'synced' NOT NULL,
	"sync_error" text,
	"sync_attempts" integer DEFAULT 0 NOT NULL,
	"sync_due_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "calls_open_number_uq";--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "collect" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "voice" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "model" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "language" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "voicemail" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "provider_settings" jsonb;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "direction" text DEFAULT 'outbound' NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "summary" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_url" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "warnings" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_provider_credential_id_provider_credentials_id_fk" FOREIGN KEY ("provider_credential_id") REFERENCES "public"."provider_credentials"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "phone_numbers_org_idx" ON "phone_numbers" USING btree ("organization_id","id") WHERE "phone_numbers"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_provider_number_uq" ON "phone_numbers" USING btree ("provider_credential_id","provider_number_id") WHERE "phone_numbers"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "phone_numbers_agent_idx" ON "phone_numbers" USING btree ("agent_id") WHERE "phone_numbers"."agent_id" is not null;--> statement-breakpoint
CREATE INDEX "phone_numbers_sync_due_idx" ON "phone_numbers" USING btree ("sync_due_at") WHERE "phone_numbers"."sync_state" = 'pending';--> statement-breakpoint
CREATE INDEX "agents_provider_agent_idx" ON "agents" USING btree ("provider_agent_id") WHERE "agents"."provider_agent_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "calls_provider_call_uq" ON "calls" USING btree ("provider","provider_call_id") WHERE "calls"."provider_call_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "calls_open_number_uq" ON "calls" USING btree ("agent_id","to_number") WHERE "calls"."status" <> 'ended' and "calls"."direction" = 'outbound';