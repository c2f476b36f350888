package org.example.textkit;

public final class Durations {

    public static String minutes(long seconds) {
        if (seconds < 0) {
            throw new IllegalArgumentException();
        }
        long whole = seconds / 60;
        long rest = seconds % 60;
        return whole + ":" + rest;
    }
}
