-- Hand-written: the search index keeps, beside each word, its prefixes of 2 to 8 letters (it kept 2
-- and 3). Every search word is a prefix (`"azul"*`, src/features/catalog/search.ts). A prefix the index
-- does not keep is found by reading every word that starts with it, in every store, before the store's
-- own matches are picked: a 300-product store's search paid for the 100,000 products of another. A kept
-- prefix is one list, read like a word (bench/README.md, "Three whole runs on a quiet machine").
-- FTS5 cannot change its prefixes in place: the index is built again, with the same rows and triggers.
DROP TRIGGER `products_search_insert`;
--> statement-breakpoint
DROP TRIGGER `products_search_update`;
--> statement-breakpoint
DROP TRIGGER `products_search_delete`;
--> statement-breakpoint
ALTER TABLE `product_search` RENAME TO `product_search_before`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `product_search` USING fts5(name, skus, description, store, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8');
--> statement-breakpoint
INSERT INTO product_search(rowid, name, skus, description, store)
  SELECT rowid, name, skus, description, store FROM product_search_before;
--> statement-breakpoint
DROP TABLE `product_search_before`;
--> statement-breakpoint
CREATE TRIGGER `products_search_insert` AFTER INSERT ON `products` WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO product_search(rowid, name, skus, description, store)
    VALUES (new.seq, new.name, '', new.description, replace(new.store_id, '_', '') || ' ' || replace(new.store_id, '_', '') || new.state);
END;
--> statement-breakpoint
CREATE TRIGGER `products_search_update` AFTER UPDATE OF name, description, deleted_at, state, store_id ON `products` BEGIN
  DELETE FROM product_search WHERE rowid = old.seq;
  INSERT INTO product_search(rowid, name, skus, description, store)
    SELECT new.seq, new.name,
      (SELECT coalesce(group_concat(v.sku, ' '), '') FROM variants v WHERE v.product_id = new.id AND v.deleted_at IS NULL),
      new.description,
      replace(new.store_id, '_', '') || ' ' || replace(new.store_id, '_', '') || new.state
    WHERE new.deleted_at IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `products_search_delete` AFTER DELETE ON `products` BEGIN
  DELETE FROM product_search WHERE rowid = old.seq;
END;
