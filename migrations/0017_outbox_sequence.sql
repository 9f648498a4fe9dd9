PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_outbox_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`store_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	`dispatched_at` integer
);
--> statement-breakpoint
-- Hand-edited: `seq` is the old table's implicit rowid, so the events already written keep their order
-- and a listen client's Last-Event-ID keeps its place. Inserting them sets sqlite_sequence to the
-- largest, so the next event comes after every one of them. webhook_deliveries.event_id keeps pointing
-- at `id` (the rebuild runs with foreign keys off and they are checked before the commit); the table
-- has no triggers to write again.
INSERT INTO `__new_outbox_events`("seq", "id", "store_id", "type", "data", "created_at", "dispatched_at") SELECT "rowid", "id", "store_id", "type", "data", "created_at", "dispatched_at" FROM `outbox_events`;--> statement-breakpoint
DROP TABLE `outbox_events`;--> statement-breakpoint
ALTER TABLE `__new_outbox_events` RENAME TO `outbox_events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_events_id_unique` ON `outbox_events` (`id`);--> statement-breakpoint
CREATE INDEX `outbox_events_store_seq` ON `outbox_events` (`store_id`,`seq`);--> statement-breakpoint
CREATE INDEX `outbox_events_pending` ON `outbox_events` (`created_at`) WHERE "outbox_events"."dispatched_at" is null;--> statement-breakpoint
CREATE INDEX `outbox_events_dispatched` ON `outbox_events` (`created_at`) WHERE "outbox_events"."dispatched_at" is not null;