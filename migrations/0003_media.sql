CREATE TABLE `media` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`kind` text NOT NULL,
	`mime_type` text NOT NULL,
	`extension` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`filename` text NOT NULL,
	`width` integer,
	`height` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `media_store_created` ON `media` (`store_id`,`created_at`);