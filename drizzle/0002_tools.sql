CREATE TABLE "tool_invocations" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"call_id" text NOT NULL,
	"tool_id" text,
	"tool_name" text NOT NULL,
	"arguments" jsonb NOT NULL,
	"request" jsonb,
	"response_status" integer,
	"response_excerpt" text,
	"result" text NOT NULL,
	"error" text,
	"latency_ms" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tools" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"method" text NOT NULL,
	"url" text NOT NULL,
	"headers" jsonb NOT NULL,
	"parameters" jsonb NOT NULL,
	"variables" jsonb NOT NULL,
	"timeout_ms" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tool_invocations" ADD CONSTRAINT "tool_invocations_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tools" ADD CONSTRAINT "tools_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tool_invocations_call_idx" ON "tool_invocations" USING btree ("call_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tools_org_name_uq" ON "tools" USING btree ("organization_id","name");--> statement-breakpoint
CREATE INDEX "tools_org_id_idx" ON "tools" USING btree ("organization_id","id");