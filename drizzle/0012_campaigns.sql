CREATE TABLE "campaign_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"campaign_id" text NOT NULL,
	"contact_id" text NOT NULL,
	"number" integer NOT NULL,
	"call_id" text NOT NULL,
	"state" text NOT NULL,
	"outcome" text,
	"result" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "campaign_contacts" (
	"id" text PRIMARY KEY NOT NULL,
	"campaign_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"phone" text NOT NULL,
	"variables" jsonb NOT NULL,
	"timezone" text,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"due_at" timestamp with time zone,
	"last_outcome" text,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"name" text NOT NULL,
	"timezone" text NOT NULL,
	"window" jsonb NOT NULL,
	"concurrency" integer NOT NULL,
	"calls_per_minute" integer NOT NULL,
	"retry" jsonb NOT NULL,
	"do_not_call_outcomes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"start_at" timestamp with time zone,
	"state" text DEFAULT 'draft' NOT NULL,
	"pace_at" timestamp with time zone,
	"next_due_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "suppressions" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"phone" text NOT NULL,
	"reason" text,
	"source" text DEFAULT 'api' NOT NULL,
	"call_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "do_not_call_outcomes" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "campaign_id" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "contact_id" text;--> statement-breakpoint
ALTER TABLE "campaign_attempts" ADD CONSTRAINT "campaign_attempts_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_attempts" ADD CONSTRAINT "campaign_attempts_contact_id_campaign_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."campaign_contacts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_contacts" ADD CONSTRAINT "campaign_contacts_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_contacts" ADD CONSTRAINT "campaign_contacts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_attempts_number_uq" ON "campaign_attempts" USING btree ("contact_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_attempts_call_uq" ON "campaign_attempts" USING btree ("call_id");--> statement-breakpoint
CREATE INDEX "campaign_attempts_open_idx" ON "campaign_attempts" USING btree ("campaign_id","created_at") WHERE "campaign_attempts"."state" in ('placing', 'placed');--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_contacts_phone_uq" ON "campaign_contacts" USING btree ("campaign_id","phone");--> statement-breakpoint
CREATE INDEX "campaign_contacts_list_idx" ON "campaign_contacts" USING btree ("campaign_id","id");--> statement-breakpoint
CREATE INDEX "campaign_contacts_state_idx" ON "campaign_contacts" USING btree ("campaign_id","state","id");--> statement-breakpoint
CREATE INDEX "campaign_contacts_due_idx" ON "campaign_contacts" USING btree ("campaign_id","due_at") WHERE "campaign_contacts"."state" in ('pending', 'retrying');--> statement-breakpoint
CREATE INDEX "campaigns_org_idx" ON "campaigns" USING btree ("organization_id","id") WHERE "campaigns"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "campaigns_running_idx" ON "campaigns" USING btree ("next_due_at") WHERE "campaigns"."state" = 'running' and "campaigns"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "suppressions_phone_uq" ON "suppressions" USING btree ("organization_id","phone");--> statement-breakpoint
CREATE INDEX "suppressions_org_idx" ON "suppressions" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "calls_campaign_idx" ON "calls" USING btree ("campaign_id","id") WHERE "calls"."campaign_id" is not null;