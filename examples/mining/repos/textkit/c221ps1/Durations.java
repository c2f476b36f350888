package org.example.textkit;

public final class Durations {

    public static String minutes(long seconds) {
        long whole = seconds / 60;
        long rest = seconds % 60;
        return whole + ":" + rest;
    }
}
