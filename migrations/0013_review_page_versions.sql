DROP INDEX `reviews_product_visible`;--> statement-breakpoint
CREATE INDEX `reviews_product_visible` ON `reviews` (`product_id`,`hidden`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `catalog_versions` ADD `reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written below: `reviews` moves on every change a product's review page shows, whichever feature
-- makes it: the reviews and their photos, the photos' files, the reviewers' names, the product's rating
-- summary, and the product itself (a deleted product's page is a 404). A review page is cached while it
-- stays (src/features/reviews/page-cache.ts). Through `FROM stores`, so that the bump is a no-op while
-- a store is being deleted.
CREATE TRIGGER `reviews_reviews_version_insert` AFTER INSERT ON `reviews` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `reviews_reviews_version_update` AFTER UPDATE ON `reviews` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `reviews_reviews_version_delete` AFTER DELETE ON `reviews` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `review_media_reviews_version_insert` AFTER INSERT ON `review_media` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `review_media_reviews_version_update` AFTER UPDATE ON `review_media` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `review_media_reviews_version_delete` AFTER DELETE ON `review_media` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_ratings_reviews_version_insert` AFTER INSERT ON `product_ratings` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_ratings_reviews_version_update` AFTER UPDATE ON `product_ratings` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_ratings_reviews_version_delete` AFTER DELETE ON `product_ratings` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_reviews_version_update` AFTER UPDATE ON `customers` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_reviews_version_delete` AFTER DELETE ON `customers` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `products_reviews_version_update` AFTER UPDATE ON `products` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `products_reviews_version_delete` AFTER DELETE ON `products` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `media_reviews_version_update` AFTER UPDATE ON `media` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `media_reviews_version_delete` AFTER DELETE ON `media` BEGIN
  INSERT INTO catalog_versions(store_id, version, reviews) SELECT id, 1, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET reviews = reviews + 1;
END;
