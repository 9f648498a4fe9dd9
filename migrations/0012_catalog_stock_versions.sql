CREATE TABLE `product_stock_versions` (
	`product_id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`version` integer NOT NULL,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `product_stock_versions_store` ON `product_stock_versions` (`store_id`,`version`);--> statement-breakpoint
ALTER TABLE `catalog_versions` ADD `stock` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written below: a change of stock or reservation (an order, a receipt) no longer raises the
-- store's catalog `version`, which would make every cached list and detail of the store again. It
-- raises the store's `stock` version and writes it as the product's own, in the change's transaction
-- (rolled back with it); a read drops the cached bodies of the products above the version it last saw
-- (src/features/catalog/read-cache.ts). `updated_at` goes with them: a variant body shows it, and a
-- stock move sets it. Every other column of `variants` raises `version` as before;
-- test/catalog/stock-versions.test.ts checks that each column is named by one of the two triggers.
DROP TRIGGER `variants_version_update`;
--> statement-breakpoint
CREATE TRIGGER `variants_version_update` AFTER UPDATE OF id, store_id, product_id, sku, price_cents, min_stock, options, position, created_at, deleted_at ON `variants` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `variants_stock_version_update` AFTER UPDATE OF stock, reserved, updated_at ON `variants` BEGIN
  INSERT INTO catalog_versions(store_id, version, stock) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET stock = stock + 1;
  INSERT INTO product_stock_versions(product_id, store_id, version) SELECT new.product_id, new.store_id, stock FROM catalog_versions WHERE store_id = new.store_id
    ON CONFLICT(product_id) DO UPDATE SET version = excluded.version;
END;
