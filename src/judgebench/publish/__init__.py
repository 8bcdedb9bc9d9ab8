"""What people read: leaderboard rows, tables (md/csv/json/html), plots, the report, submission and its verification, and export."""
