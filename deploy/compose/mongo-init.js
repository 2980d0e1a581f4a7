// Runs once, when MongoDB initialises an empty data volume (the mongo image runs
// /docker-entrypoint-initdb.d/*.js as the root user): creates the application user with
// readWrite on the Planwarden database only. Credentials come from the container's environment
// (compose.yaml, from the .env file), never from this file.
const database = process.env.PLANWARDEN_MONGO_DATABASE || 'planwarden';
const user = process.env.PLANWARDEN_MONGO_USER;
const password = process.env.PLANWARDEN_MONGO_PASSWORD;
if (!user || !password) throw new Error('PLANWARDEN_MONGO_USER and PLANWARDEN_MONGO_PASSWORD must be set');
db.getSiblingDB(database).createUser({ user, pwd: password, roles: [{ role: 'readWrite', db: database }] });
