-- Decision 0094: on a shared PostgreSQL, a process holds a lease here while it plays simulated calls; a worker
-- closes the calls of a lease past its time (a process killed outright) instead of leaving them open until their
-- deadline. A handful of rows, one per process playing calls.
CREATE TABLE "simulator_leases" (
	"player_id" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
