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
CREATE INDEX `media_store_created` ON `media` (`store_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`event_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`redelivery` integer DEFAULT false NOT NULL,
	`status` text NOT NULL,
	`due_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	`response_status` integer,
	`response_body` text,
	`error` text,
	`duration_ms` integer,
	`request_headers` text,
	`signed_payload` text,
	`next_retry_at` integer,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `outbox_events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_store` ON `webhook_deliveries` (`store_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`webhook_id`,`due_at`) WHERE "webhook_deliveries"."status" = 'PENDING';--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`description` text,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_store` ON `webhook_endpoints` (`store_id`);