CREATE TABLE "provider_tools" (
	"credential_id" text NOT NULL,
	"tool_id" text NOT NULL,
	"provider_tool_id" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "provider_tools_credential_id_tool_id_pk" PRIMARY KEY("credential_id","tool_id")
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "provider_agent_id" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "provider_sync_state" text DEFAULT 'synced' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "provider_sync_error" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "provider_sync_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "provider_sync_due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "provider_synced_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "provider_tools" ADD CONSTRAINT "provider_tools_credential_id_provider_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."provider_credentials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agents_provider_sync_due_idx" ON "agents" USING btree ("provider_sync_due_at") WHERE "agents"."provider_sync_state" = 'pending';