/* deja demo program: everything it prints differs from run to run natively
 * (wall-clock time, random bytes, a random temp directory name, its pid), yet a
 * replay of a recording prints exactly what the recorded run printed. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void print_hex(const char *label, const unsigned char *bytes, size_t len)
{
    printf("%-22s", label);
    for (size_t i = 0; i < len; i++)
        printf("%02x", bytes[i]);
    printf("\n");
}

static int fail(const char *what, const char *path)
{
    fprintf(stderr, "demo: %s %s: ", what, path);
    perror(NULL);
    return 1;
}

int main(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", gmtime(&now.tv_sec));
    printf("%-22s%s.%09ld UTC\n", "time:", when, now.tv_nsec);
    printf("%-22s%d\n", "pid:", (int)getpid());

    unsigned char random_bytes[16];
    if (getrandom(random_bytes, sizeof random_bytes, 0) != (ssize_t)sizeof random_bytes)
        return fail("getrandom", "");
    print_hex("getrandom:", random_bytes, sizeof random_bytes);

    int urandom = open("/dev/urandom", O_RDONLY);
    if (urandom < 0 || read(urandom, random_bytes, sizeof random_bytes) != (ssize_t)sizeof random_bytes)
        return fail("reading", "/dev/urandom");
    close(urandom);
    print_hex("/dev/urandom:", random_bytes, sizeof random_bytes);

    /* File I/O in a fresh temp directory whose name is itself random. */
    char dir[] = "/tmp/deja-demo-XXXXXX";
    if (!mkdtemp(dir))
        return fail("creating temp directory", dir);
    char path[64];
    snprintf(path, sizeof path, "%s/note.txt", dir);

    FILE *out = fopen(path, "w");
    if (!out)
        return fail("creating", path);
    fprintf(out, "written at %ld.%09ld\n", (long)now.tv_sec, now.tv_nsec);
    fclose(out);

    struct stat st;
    if (stat(path, &st) < 0)
        return fail("stat", path);
    char line[128] = "";
    FILE *in = fopen(path, "r");
    if (!in || !fgets(line, sizeof line, in))
        return fail("reading back", path);
    fclose(in);
    line[strcspn(line, "\n")] = '\0';
    printf("%-22s%s (%lld bytes, inode %llu)\n", "temp file:", path,
           (long long)st.st_size, (unsigned long long)st.st_ino);
    printf("%-22s%s\n", "read back:", line);

    unlink(path);
    rmdir(dir);
    return 0;
}
