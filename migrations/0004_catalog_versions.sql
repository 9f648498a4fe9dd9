CREATE TABLE `catalog_versions` (
	`store_id` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Hand-written below: every change a product read can show raises its store's catalog version.
-- Through `FROM stores`, so that the bump is a no-op while a store (and its catalog) is being deleted.
CREATE TRIGGER `products_version_insert` AFTER INSERT ON `products` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `products_version_update` AFTER UPDATE ON `products` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `products_version_delete` AFTER DELETE ON `products` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `variants_version_insert` AFTER INSERT ON `variants` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `variants_version_update` AFTER UPDATE ON `variants` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `variants_version_delete` AFTER DELETE ON `variants` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_images_version_insert` AFTER INSERT ON `product_images` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_images_version_update` AFTER UPDATE ON `product_images` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_images_version_delete` AFTER DELETE ON `product_images` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_ratings_version_update` AFTER UPDATE ON `product_ratings` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_collections_version_insert` AFTER INSERT ON `product_collections` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = (SELECT store_id FROM products WHERE id = new.product_id) ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_collections_version_delete` AFTER DELETE ON `product_collections` BEGIN
  INSERT INTO catalog_versions(store_id, version) SELECT id, 1 FROM stores WHERE id = (SELECT store_id FROM products WHERE id = old.product_id) ON CONFLICT(store_id) DO UPDATE SET version = version + 1;
END;
