-- Decision 0112: simulated calls leave the unique index of provider call ids. Their ids are unique by construction
-- (sim_<player>_<uuid>) and nothing looks one up by it; its entry, written when the call ends, was about a tenth of
-- PostgreSQL's CPU per accepted call. The new index is built before the old one is dropped: the build holds writes to
-- calls (a SHARE lock) but not reads, and the drop's exclusive lock is held only from there to the commit.
CREATE UNIQUE INDEX "calls_provider_call_uq_next" ON "calls" USING btree ("provider","provider_call_id") WHERE "calls"."provider_call_id" is not null and "calls"."provider" <> 'simulator';--> statement-breakpoint
DROP INDEX "calls_provider_call_uq";--> statement-breakpoint
ALTER INDEX "calls_provider_call_uq_next" RENAME TO "calls_provider_call_uq";
