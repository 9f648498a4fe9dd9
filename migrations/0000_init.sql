CREATE TABLE `outbox_events` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	`dispatched_at` integer
);
--> statement-breakpoint
CREATE INDEX `outbox_events_pending` ON `outbox_events` (`created_at`) WHERE "outbox_events"."dispatched_at" is null;