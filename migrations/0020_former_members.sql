CREATE TABLE `former_members` (
	`group_id` text NOT NULL,
	`rm` text NOT NULL,
	`name` text NOT NULL,
	`left_at` integer NOT NULL,
	PRIMARY KEY(`group_id`, `rm`),
	FOREIGN KEY (`group_id`) REFERENCES `groups`(`id`) ON UPDATE no action ON DELETE cascade
);
