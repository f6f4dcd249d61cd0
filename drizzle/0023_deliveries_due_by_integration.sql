-- Decision 0114: the pending deliveries by integration, for the claim when a backlog held back by its room fills the
-- head of the queue. Its predicate names the integration so that only the statements that say the same read it. The
-- build holds writes to deliveries (a SHARE lock) while it reads the table; the index holds only the pending rows.
CREATE INDEX "deliveries_due_by_integration_idx" ON "deliveries" USING btree ("integration_id","next_attempt_at") WHERE "deliveries"."state" = 'pending' and "deliveries"."integration_id" > '';