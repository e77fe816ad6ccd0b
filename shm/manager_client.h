/* shm/manager_client.h: a process's side of th-shm-manager, the daemon that unlinks the POSIX shared
 * memory segments of the "name" sharing strategy when the process that registered them dies.
 *
 * WHAT IT DOES
 *   A segment shared by name lives in /dev/shm until someone unlinks it; its in-segment refcount unlinks it
 *   when the last user lets go, but a process that is SIGKILLed (OOM killer, a crashed DataLoader worker)
 *   never lets go. So each process that creates named segments registers their names with one manager per
 *   user; it keeps one connection open to it for its lifetime, and when the process dies (however: the
 *   manager learns of it from the connection's end, and asks the kernel whether the process is gone, so a
 *   connection this process closed while it lives costs it nothing), the manager unlinks the names it
 *   registered that no other live client has registered too. A normal unlink is followed by
 *   th__shm_manager_unregister, which only drops the name from the books; or a process lets go with
 *   th__shm_manager_release, and the manager unlinks the name when no other live process has it registered.
 *
 * ORDER: register first, then create. Call th__shm_manager_register(name) just BEFORE
 *   shm_open(name, O_CREAT | O_EXCL, ...): a process killed between the two leaves only a name the manager
 *   unlinks in vain (ENOENT), while the other order leaks the segment if the process dies before the reply.
 *   If creating fails, call th__shm_manager_unregister(name). Names are unique (pid and random bits) so
 *   registering one before it exists unlinks nobody else's segment.
 *   A process that opens a segment by name and needs the name to outlive the creator registers it too
 *   (before shm_open, unregistering if that fails): the name is unlinked when the last process that
 *   registered it dies. Mappings never depend on the name; only later opens by name do.
 *
 * THE MANAGER
 *   The first registration of a process connects to the user's running manager or starts one: under a lock
 *   in the rendezvous directory it reads the file "manager" there (the running manager's pid and socket),
 *   and when no manager answers on that socket it spawns the executable th-shm-manager, which detaches
 *   (fork, setsid), listens on a Unix socket in a private directory (mkdtemp, 0700) and reports the socket
 *   back over a pipe. The manager exits when it has had no client for a grace period, and on SIGTERM,
 *   SIGINT or SIGHUP, unlinking whatever names it still holds.
 *   The executable is looked for, in order:
 *     1. $TH_SHM_MANAGER, a path (when set and not empty, only there);
 *     2. next to the shared library or executable holding this code (dladdr), then in ../libexec from it;
 *     3. next to the running executable (/proc/self/exe), then in ../libexec from it;
 *     4. TH_SHM_MANAGER_PATH, when this file was compiled with -DTH_SHM_MANAGER_PATH="/its/path";
 *     5. each directory of $PATH.
 *   The rendezvous directory is $TH_SHM_MANAGER_DIR when set (tests point it at a temporary directory),
 *   else $XDG_RUNTIME_DIR/th-shm when $XDG_RUNTIME_DIR is a directory of this user, else
 *   /tmp/th-shm-<uid>. It is created 0700 and must be a directory (not a symlink) owned by this user with
 *   no group or other permissions, or nothing is trusted.
 *   Both sides check the peer's uid (SO_PEERCRED) and refuse any other user.
 *
 * ENVIRONMENT
 *   TH_SHM_MANAGER              the executable (see above)
 *   TH_SHM_MANAGER_DIR          the rendezvous directory (see above)
 *   TH_SHM_MANAGER_TIMEOUT_MS   how long a client waits for the lock, the start and each reply (60000)
 *   TH_SHM_MANAGER_IDLE_MS      read by the manager: its grace period with no clients (2000)
 *   TH_SHM_MANAGER_LOG          read by the manager: a file it appends a line per event to
 *
 * ERRORS
 *   0, or a negative th_status with a message "function: detail" that th_shm_manager_last_error() returns
 *   (thread-local: tensor.h keeps its own message private to its implementation, so this companion keeps
 *   its own). TH_ERR_INVALID: a bad name, or unregistering a name this process did not register.
 *   TH_ERR_IO: no manager could be found, started or understood; the message contains "th-shm-manager" and
 *   says why (not found, gone, timed out, answered garbage). A registration that finds its manager gone
 *   (killed, crashed, SIGTERMed) starts or finds another at once and tries again, once. Any other failure
 *   fails the call and drops the connection; the next registration starts or finds a manager and registers
 *   again every name this process still holds. A manager that did not answer in time
 *   (TH_SHM_MANAGER_TIMEOUT_MS: stopped, starved) keeps the names it had: it sees the connection close but
 *   the process alive, and hands them to the process's next connection. Releasing a name whose manager was
 *   lost asks nobody (no manager can tell who else holds it) and fails, leaving the name as is;
 *   unregistering succeeds. A protocol error ends the connection like a death does: the manager unlinks
 *   the process's names (this client never sends one).
 *
 * Thread-safe; a child of fork() starts with no connection and no names (its parent's stay its parent's).
 */
#ifndef TH_SHM_MANAGER_CLIENT_H
#define TH_SHM_MANAGER_CLIENT_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers name ("/th_..." as given to shm_open; see ORDER above) as this process's. Registering a
 * name twice is the same as once. */
int th__shm_manager_register(const char *name);
/* The segment was unlinked normally: the manager forgets this process's registration of name. */
int th__shm_manager_unregister(const char *name);
/* This process lets go of name (its last mapping is gone), which the manager unlinks when no other live
 * process has it registered: the live registrations are a refcount that a SIGKILLed holder cannot leave
 * too high, as it can an in-segment one. Returns 1 when the manager unlinked it (or tried: it was already
 * gone), 0 when another live process still holds it, or a negative th_status (TH_ERR_INVALID: not
 * registered by this process; TH_ERR_IO: no manager to ask, the name is left as is). */
int th__shm_manager_release(const char *name);

/* The message of the last error of the functions above on this thread ("" if none yet). */
const char *th_shm_manager_last_error(void);

/* For tests: the pid of the manager this process is connected to, or 0 when not connected. */
int th__shm_manager_pid(void);

#ifdef __cplusplus
}
#endif

#endif
