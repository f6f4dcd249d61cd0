-- Decision 0108: the columns that hold a call's report, its outcome's payload and what tools and receivers answered
-- are compressed with lz4, where the server has it (PostgreSQL 14 and later built with lz4, as Debian's and the
-- official images are). pglz cost PostgreSQL about a tenth of its CPU per provider report: lz4 compresses and reads
-- back several times faster, for values about a fifth larger. Values already stored keep their compression until
-- rewritten. The embedded database has only pglz, and keeps it.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE "calls"
      ALTER COLUMN "transcript" SET COMPRESSION lz4,
      ALTER COLUMN "collected_data" SET COMPRESSION lz4,
      ALTER COLUMN "provisional_end" SET COMPRESSION lz4;
    ALTER TABLE "deliveries" ALTER COLUMN "payload" SET COMPRESSION lz4;
    ALTER TABLE "delivery_attempts" ALTER COLUMN "response_excerpt" SET COMPRESSION lz4;
    ALTER TABLE "tool_invocations"
      ALTER COLUMN "arguments" SET COMPRESSION lz4,
      ALTER COLUMN "request" SET COMPRESSION lz4,
      ALTER COLUMN "response_excerpt" SET COMPRESSION lz4,
      ALTER COLUMN "result" SET COMPRESSION lz4;
  END IF;
END $$;
