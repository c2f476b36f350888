package org.example.textkit;

public final class Names {

    public static String initials(String first, String last) {
        return first.substring(0, 1) + last.substring(0, 1);
    }
}
