CREATE TABLE "deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"integration_id" text NOT NULL,
	"call_id" text NOT NULL,
	"webhook_id" text NOT NULL,
	"state" text NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"claim" integer DEFAULT 0 NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"retries_used" integer DEFAULT 0 NOT NULL,
	"final_attempt" boolean DEFAULT false NOT NULL,
	"payload" text,
	"payload_truncated" boolean DEFAULT false NOT NULL,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "delivery_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "delivery_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"delivery_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"status" integer,
	"latency_ms" integer NOT NULL,
	"error" text,
	"error_code" text,
	"response_excerpt" text
);
--> statement-breakpoint
ALTER TABLE "integrations" ADD COLUMN "failing_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deliveries_due_idx" ON "deliveries" USING btree ("next_attempt_at","integration_id") WHERE "deliveries"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "deliveries_org_idx" ON "deliveries" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "deliveries_integration_idx" ON "deliveries" USING btree ("integration_id","id");--> statement-breakpoint
CREATE INDEX "deliveries_call_idx" ON "deliveries" USING btree ("call_id");--> statement-breakpoint
CREATE INDEX "delivery_attempts_delivery_idx" ON "delivery_attempts" USING btree ("delivery_id","id");--> statement-breakpoint
-- An id in the format of src/lib/ids.ts (prefix, 10 base32 characters of millisecond time, 16 random),
-- for rows the database creates itself: the deliveries written by the statement that ends a call.
CREATE FUNCTION "switchboard_new_id"(prefix text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  alphabet constant text := '0123456789abcdefghjkmnpqrstvwxyz';
  t bigint := floor(extract(epoch from clock_timestamp()) * 1000);
  bytes bytea := uuid_send(gen_random_uuid());
  id text := '';
BEGIN
  FOR i IN 1..10 LOOP
    id := substr(alphabet, (t % 32)::int + 1, 1) || id;
    t := t / 32;
  END LOOP;
  id := prefix || '_' || id;
  FOR i IN 0..15 LOOP
    id := id || substr(alphabet, get_byte(bytes, i) % 32 + 1, 1);
  END LOOP;
  RETURN id;
END
$$;
