-- Decision 0068: new pages of calls are filled to 80 %. A call is inserted small and updated as it ends, an update
-- that cannot be HOT (status is indexed). With pages filled full, the insert took whatever gap the free-space map
-- knew of in an older page, and the end's new version another, and each such page stopped being all-visible: the
-- lists' index-only scans read the heap again until the next vacuum. With a fifth of each new page kept free, an
-- insert needs more room than the gaps between older rows hold, and an end that adds little fits on its own page.
-- Takes effect for pages written from now on: no rewrite, and its lock (SHARE UPDATE EXCLUSIVE) lets reads and
-- writes go on.
ALTER TABLE "calls" SET (fillfactor = 80);
