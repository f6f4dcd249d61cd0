CREATE TABLE "call_stats_slots" (
	"organization_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"slot_start" timestamp with time zone NOT NULL,
	"calls" integer NOT NULL,
	"answered" integer NOT NULL,
	"no_answer" integer NOT NULL,
	"busy" integer NOT NULL,
	"voicemail" integer NOT NULL,
	"failed" integer NOT NULL,
	"by_outcome" jsonb NOT NULL,
	"answered_by_outcome" jsonb NOT NULL,
	"duration_sum" bigint NOT NULL,
	"duration_count" integer NOT NULL,
	"duration_buckets" integer[] NOT NULL,
	"duration_counts" integer[] NOT NULL,
	"tool_runs" integer NOT NULL,
	"tool_failed" integer NOT NULL,
	"latency_buckets" integer[] NOT NULL,
	"latency_counts" integer[] NOT NULL,
	"deliveries_delivered" integer NOT NULL,
	"deliveries_failed" integer NOT NULL,
	"deliveries_pending" integer NOT NULL,
	CONSTRAINT "call_stats_slots_organization_id_agent_id_slot_start_pk" PRIMARY KEY("organization_id","agent_id","slot_start")
);
--> statement-breakpoint
CREATE TABLE "stats_rollup_progress" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"rolled_until" timestamp with time zone DEFAULT 'epoch' NOT NULL
);
--> statement-breakpoint
CREATE INDEX "calls_org_created_idx" ON "calls" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "calls_created_idx" ON "calls" USING btree ("created_at");--> statement-breakpoint
INSERT INTO "stats_rollup_progress" ("id") VALUES (1);--> statement-breakpoint
-- A histogram bucket for a duration (seconds) or latency (ms), so that percentiles can be added up
-- from quarter hours (decision 0040): values below 16 each have their own bucket; above, every
-- power of two is cut in 8, so a bucket's middle is within 1/16 (6.25 %) of any value in it.
CREATE FUNCTION "switchboard_stats_bucket"(v integer) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN v IS NULL THEN NULL
    WHEN v < 16 THEN greatest(v, 0)
    ELSE 16 + (length(ltrim(v::bit(32)::text, '0')) - 5) * 8
      + ((v >> (length(ltrim(v::bit(32)::text, '0')) - 4)) & 7)
  END
$$;--> statement-breakpoint
-- The value a bucket stands for: itself below 16, else the middle of its range.
CREATE FUNCTION "switchboard_stats_bucket_value"(b integer) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN b IS NULL THEN NULL
    WHEN b < 16 THEN b
    ELSE ((8 + (b - 16) % 8) << ((b - 16) / 8 + 1)) + ((1 << ((b - 16) / 8 + 1)) - 1) / 2
  END
$$;--> statement-breakpoint
-- Keeps the rolled-up delivery counts current when a delivery of a rolled-up quarter hour changes
-- state (a retry by hand, a retry that finally succeeds) or is deleted with its integration: one
-- statement per statement on deliveries, nothing when no state changed (a claim, a failed attempt
-- that will be retried). Deliveries are added by the statement that ends their call, before its
-- quarter hour can be rolled up (every call of it must have ended), so inserts need nothing. The shared lock waits for a rollup under way, which takes
-- it exclusively, so a change is either seen by the rollup or applied to the row it wrote.
CREATE FUNCTION "switchboard_stats_deliveries_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_advisory_xact_lock_shared(1398030676);
    UPDATE call_stats_slots s SET
      deliveries_delivered = s.deliveries_delivered + x.delivered,
      deliveries_failed = s.deliveries_failed + x.failed,
      deliveries_pending = s.deliveries_pending + x.pending
    FROM (
      SELECT c.organization_id, coalesce(c.agent_id, '') AS agent_id, c.slot_start,
        coalesce(sum(ch.d) FILTER (WHERE ch.state = 'delivered'), 0) AS delivered,
        coalesce(sum(ch.d) FILTER (WHERE ch.state = 'failed'), 0) AS failed,
        coalesce(sum(ch.d) FILTER (WHERE ch.state = 'pending'), 0) AS pending
      FROM (SELECT o.call_id, o.state, -1 AS d FROM old_rows o) ch
      CROSS JOIN LATERAL (
        SELECT organization_id, agent_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00') AS slot_start
        FROM calls WHERE calls.id = ch.call_id
      ) c
      GROUP BY GROUPING SETS ((c.organization_id, c.agent_id, c.slot_start), (c.organization_id, c.slot_start))
    ) x
    WHERE s.organization_id = x.organization_id AND s.agent_id = x.agent_id AND s.slot_start = x.slot_start;
  ELSIF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE o.state IS DISTINCT FROM n.state) THEN
    PERFORM pg_advisory_xact_lock_shared(1398030676);
    UPDATE call_stats_slots s SET
      deliveries_delivered = s.deliveries_delivered + x.delivered,
      deliveries_failed = s.deliveries_failed + x.failed,
      deliveries_pending = s.deliveries_pending + x.pending
    FROM (
      SELECT c.organization_id, coalesce(c.agent_id, '') AS agent_id, c.slot_start,
        coalesce(sum(ch.d) FILTER (WHERE ch.state = 'delivered'), 0) AS delivered,
        coalesce(sum(ch.d) FILTER (WHERE ch.state = 'failed'), 0) AS failed,
        coalesce(sum(ch.d) FILTER (WHERE ch.state = 'pending'), 0) AS pending
      FROM (SELECT n.call_id, n.state, 1 AS d FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE o.state IS DISTINCT FROM n.state
        UNION ALL
        SELECT o.call_id, o.state, -1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE o.state IS DISTINCT FROM n.state) ch
      CROSS JOIN LATERAL (
        SELECT organization_id, agent_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00') AS slot_start
        FROM calls WHERE calls.id = ch.call_id
      ) c
      GROUP BY GROUPING SETS ((c.organization_id, c.agent_id, c.slot_start), (c.organization_id, c.slot_start))
    ) x
    WHERE s.organization_id = x.organization_id AND s.agent_id = x.agent_id AND s.slot_start = x.slot_start;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "deliveries_stats_update" AFTER UPDATE ON "deliveries" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "switchboard_stats_deliveries_changed"();--> statement-breakpoint
CREATE TRIGGER "deliveries_stats_delete" AFTER DELETE ON "deliveries" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "switchboard_stats_deliveries_changed"();
