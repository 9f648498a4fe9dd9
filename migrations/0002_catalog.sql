CREATE TABLE `product_collections` (
	`product_id` text NOT NULL,
	`collection_id` text NOT NULL,
	PRIMARY KEY(`product_id`, `collection_id`),
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`collection_id`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `product_collections_collection` ON `product_collections` (`collection_id`,`product_id`);--> statement-breakpoint
CREATE TABLE `product_counts` (
	`store_id` text NOT NULL,
	`state` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`store_id`, `state`),
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `product_images` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`product_id` text NOT NULL,
	`media_id` text,
	`url` text NOT NULL,
	`is_primary` integer DEFAULT false NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `product_images_product` ON `product_images` (`product_id`,`position`);--> statement-breakpoint
CREATE TABLE `product_ratings` (
	`product_id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	`sum` integer DEFAULT 0 NOT NULL,
	`average` real DEFAULT 0 NOT NULL,
	`r1` integer DEFAULT 0 NOT NULL,
	`r2` integer DEFAULT 0 NOT NULL,
	`r3` integer DEFAULT 0 NOT NULL,
	`r4` integer DEFAULT 0 NOT NULL,
	`r5` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `product_ratings_store_average` ON `product_ratings` (`store_id`,`average`,`count`,`product_id`);--> statement-breakpoint
CREATE TABLE `products` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`store_id` text NOT NULL,
	`type` text DEFAULT 'SIMPLE' NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`state` text DEFAULT 'DRAFT' NOT NULL,
	`category_id` text,
	`brand_id` text,
	`price_cents` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`category_id`) REFERENCES `categories`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_id_unique` ON `products` (`id`);--> statement-breakpoint
CREATE INDEX `products_store_created` ON `products` (`store_id`,`created_at`,`id`,`state`,`price_cents`,`category_id`,`brand_id`) WHERE "products"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `products_store_price` ON `products` (`store_id`,`price_cents`,`id`) WHERE "products"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `products_store_name` ON `products` (`store_id`,lower("name"),`id`) WHERE "products"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `products_store_category` ON `products` (`store_id`,`category_id`) WHERE "products"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `products_store_brand` ON `products` (`store_id`,`brand_id`) WHERE "products"."deleted_at" is null;--> statement-breakpoint
CREATE TABLE `stock_movements` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`store_id` text NOT NULL,
	`variant_id` text NOT NULL,
	`kind` text NOT NULL,
	`quantity` integer NOT NULL,
	`stock_after` integer NOT NULL,
	`reserved_after` integer NOT NULL,
	`reason` text,
	`order_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`variant_id`) REFERENCES `variants`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "stock_movements_kind" CHECK("stock_movements"."kind" in ('RECEIVE', 'ADJUST', 'RESERVE', 'RELEASE', 'SALE', 'RETURN'))
);
--> statement-breakpoint
CREATE INDEX `stock_movements_variant` ON `stock_movements` (`variant_id`,`id`);--> statement-breakpoint
CREATE TABLE `variants` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`product_id` text NOT NULL,
	`sku` text NOT NULL,
	`price_cents` integer NOT NULL,
	`stock` integer DEFAULT 0 NOT NULL,
	`reserved` integer DEFAULT 0 NOT NULL,
	`min_stock` integer DEFAULT 5 NOT NULL,
	`options` text DEFAULT '{}' NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "variants_stock_levels" CHECK("variants"."reserved" >= 0 and "variants"."reserved" <= "variants"."stock"),
	CONSTRAINT "variants_price" CHECK("variants"."price_cents" >= 0),
	CONSTRAINT "variants_min_stock" CHECK("variants"."min_stock" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `variants_store_sku` ON `variants` (`store_id`,lower("sku")) WHERE "variants"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `variants_product` ON `variants` (`product_id`,`position`);--> statement-breakpoint
CREATE TABLE `brands` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `brands_store_name` ON `brands` (`store_id`,lower("name"));--> statement-breakpoint
CREATE INDEX `brands_store_created` ON `brands` (`store_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `categories` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `categories_store_name` ON `categories` (`store_id`,lower("name"));--> statement-breakpoint
CREATE INDEX `categories_store_created` ON `categories` (`store_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `collections` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collections_store_name` ON `collections` (`store_id`,lower("name"));--> statement-breakpoint
CREATE INDEX `collections_store_created` ON `collections` (`store_id`,`created_at`);