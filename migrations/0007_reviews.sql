CREATE TABLE `review_media` (
	`review_id` text NOT NULL,
	`media_id` text NOT NULL,
	`store_id` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`review_id`, `media_id`),
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`media_id`) REFERENCES `media`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_media_media` ON `review_media` (`store_id`,`media_id`);--> statement-breakpoint
CREATE TABLE `reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`product_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`rating` integer NOT NULL,
	`title` text NOT NULL,
	`comment` text NOT NULL,
	`hidden` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reviews_product_customer` ON `reviews` (`product_id`,`customer_id`);--> statement-breakpoint
CREATE INDEX `reviews_store_created` ON `reviews` (`store_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `reviews_product_visible` ON `reviews` (`product_id`,`hidden`,`created_at`);