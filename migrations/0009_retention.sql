CREATE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `customer_sessions_expires` ON `customer_sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `student_sessions_expires` ON `student_sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `outbox_events_dispatched` ON `outbox_events` (`created_at`) WHERE "outbox_events"."dispatched_at" is not null;